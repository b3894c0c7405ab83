package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// A rule added to the global ruleset with a private source network is
// refused beside its row; with a public one it is saved and the API
// serves it.
func TestGlobalFirewallRuleset(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "firewall")
	b.Shot("firewall")
	b.openGlobalRuleset()

	row := b.emptyRuleRow()
	b.Choose(row, "protocol", "^tcp$")
	ports := b.FindAll(row, "control", "port")
	if len(ports) == 0 || len(ports) > 2 {
		b.Fail("the new rule row has %d controls labelled port, want 1 (a range) or 2 (from, to)", len(ports))
	}
	for _, p := range ports {
		b.TypeInto(p, "8080")
	}
	b.Fill(row, "source", "10.0.0.0/8")
	b.Fill(row, "description", "e2e web")
	form := b.Try(fmt.Sprintf("formOf(%s)", browser.JS(row)))
	if form == "" {
		b.Fail("the rule row is not in a form")
	}
	b.Shot("rule added")
	b.Press(form, "^(save|update|apply)")
	b.FieldError("main", "source")
	b.WaitText("main", "not a public network")
	b.Shot("private source refused")

	// The form comes back with the refused rule in it: correct it.
	bad := b.Try(`(all("main", "control", "source").filter(el => el.value === "10.0.0.0/8").map(mark)[0] || "")`)
	if bad == "" {
		b.Fail("the refused rule is not given back in the form")
	}
	b.TypeInto(chromedp.CSS(bad), "203.0.113.0/24")
	b.Press(b.Try(fmt.Sprintf("formOf(%s)", browser.JS(bad))), "^(save|update|apply)")
	b.WaitJS("the flash after saving", `!!document.querySelector("#flash [role=status]")`)
	b.Shot("global ruleset saved")

	var global struct{ Rules []firewallRule }
	s.api(t, s.apiKey(t, o), http.MethodGet, "/firewall-rulesets/global", nil).ok(t, http.StatusOK, &global)
	want := firewallRule{Protocol: "tcp", PortRange: []int{8080, 8080}, SourceNetwork: "203.0.113.0/24", Description: "e2e web"}
	found := slices.ContainsFunc(global.Rules, func(r firewallRule) bool {
		return r.Protocol == want.Protocol && slices.Equal(r.PortRange, want.PortRange) &&
			r.SourceNetwork == want.SourceNetwork && r.Description == want.Description
	})
	if !found {
		t.Errorf("the API's global ruleset has no rule %+v: %+v", want, global.Rules)
	}
}

// firewallRule is a rule as the API shows it.
type firewallRule struct {
	Protocol      string `json:"protocol"`
	PortRange     []int  `json:"port_range"`
	SourceNetwork string `json:"source_network"`
	Description   string `json:"description"`
}

// openGlobalRuleset follows the firewall page's way to the global
// ruleset's editor, a link or button named for it or leading to an
// address with "global" in it, unless the page is that editor already.
func (b *tab) openGlobalRuleset() {
	b.T.Helper()
	sel := b.Try(`find("main", "a[href],button,[hx-get]", "global")`)
	if sel == "" {
		sel = b.Try(`linkTo("main", "global")`)
	}
	switch {
	case sel == "" && b.Has("main", "control", "source"):
		return // the rules on the page are the global ones
	case sel == "":
		b.Fail("the firewall page has no rule editor and no link or button to the global ruleset")
	}
	var current bool
	if err := b.EvalJS(fmt.Sprintf(`document.querySelector(%s).getAttribute("aria-current") === "page"`, browser.JS(sel)), &current); err != nil {
		b.Fail("read the global ruleset link: %v", err)
	}
	if current {
		return
	}
	var before string
	if err := b.EvalJS("location.href", &before); err != nil {
		b.Fail("read the location: %v", err)
	}
	b.Do("open the global ruleset", chromedp.Click(chromedp.CSS(sel)))
	b.WaitJS("the global ruleset's page", fmt.Sprintf("location.href !== %s", browser.JS(before)))
	b.Ready()
	b.Settled()
	b.Shot("global ruleset")
}

// emptyRuleRow returns the row of the rule editor to type a new rule
// into: an empty row when the form offers one, else the row that "Add
// rule" adds.
func (b *tab) emptyRuleRow() string {
	b.T.Helper()
	if sel := b.Try(`(all("main", "control", "source").filter(el => el.value === "").map(mark)[0] || "")`); sel != "" {
		return b.Try(fmt.Sprintf("rowOf(%s, %s)", browser.JS(sel), browser.JS("source")))
	}
	before := len(b.FindAll("main", "control", "source"))
	b.Press("main", "^add( a)? rule")
	b.WaitJS("a new rule row", fmt.Sprintf(`all("main", "control", "source").length > %d`, before))
	sel := b.Try(`(all("main", "control", "source").filter(el => el.value === "").map(mark)[0] || "")`)
	if sel == "" {
		b.Fail("Add rule added no empty row")
	}
	return b.Try(fmt.Sprintf("rowOf(%s, %s)", browser.JS(sel), browser.JS("source")))
}
