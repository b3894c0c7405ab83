package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// A rule added to the global ruleset with a private source network is
// refused beside its row; with a public one it is saved and the API
// serves it.
func TestGlobalFirewallRuleset(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "firewall")
	b.shot("firewall")
	b.openGlobalRuleset()

	row := b.emptyRuleRow()
	b.choose(row, "protocol", "^tcp$")
	ports := b.findAll(row, "control", "port")
	if len(ports) == 0 || len(ports) > 2 {
		b.fail("the new rule row has %d controls labelled port, want 1 (a range) or 2 (from, to)", len(ports))
	}
	for _, p := range ports {
		b.typeInto(p, "8080")
	}
	b.fill(row, "source", "10.0.0.0/8")
	b.fill(row, "description", "e2e web")
	form := b.try(fmt.Sprintf("formOf(%s)", js(row)))
	if form == "" {
		b.fail("the rule row is not in a form")
	}
	b.shot("rule added")
	b.press(form, "^(save|update|apply)")
	b.fieldError("main", "source")
	b.waitText("main", "not a public network")
	b.shot("private source refused")

	// The form comes back with the refused rule in it: correct it.
	bad := b.try(`(all("main", "control", "source").filter(el => el.value === "10.0.0.0/8").map(mark)[0] || "")`)
	if bad == "" {
		b.fail("the refused rule is not given back in the form")
	}
	b.typeInto(chromedp.CSS(bad), "203.0.113.0/24")
	b.press(b.try(fmt.Sprintf("formOf(%s)", js(bad))), "^(save|update|apply)")
	b.waitJS("the flash after saving", `!!document.querySelector("#flash [role=status]")`)
	b.shot("global ruleset saved")

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
	b.t.Helper()
	sel := b.try(`find("main", "a[href],button,[hx-get]", "global")`)
	if sel == "" {
		sel = b.try(`linkTo("main", "global")`)
	}
	switch {
	case sel == "" && b.has("main", "control", "source"):
		return // the rules on the page are the global ones
	case sel == "":
		b.fail("the firewall page has no rule editor and no link or button to the global ruleset")
	}
	var current bool
	if err := b.evalJS(fmt.Sprintf(`document.querySelector(%s).getAttribute("aria-current") === "page"`, js(sel)), &current); err != nil {
		b.fail("read the global ruleset link: %v", err)
	}
	if current {
		return
	}
	var before string
	if err := b.evalJS("location.href", &before); err != nil {
		b.fail("read the location: %v", err)
	}
	b.do("open the global ruleset", chromedp.Click(chromedp.CSS(sel)))
	b.waitJS("the global ruleset's page", fmt.Sprintf("location.href !== %s", js(before)))
	b.ready()
	b.settled()
	b.shot("global ruleset")
}

// emptyRuleRow returns the row of the rule editor to type a new rule
// into: an empty row when the form offers one, else the row that "Add
// rule" adds.
func (b *tab) emptyRuleRow() string {
	b.t.Helper()
	if sel := b.try(`(all("main", "control", "source").filter(el => el.value === "").map(mark)[0] || "")`); sel != "" {
		return b.try(fmt.Sprintf("rowOf(%s, %s)", js(sel), js("source")))
	}
	before := len(b.findAll("main", "control", "source"))
	b.press("main", "^add( a)? rule")
	b.waitJS("a new rule row", fmt.Sprintf(`all("main", "control", "source").length > %d`, before))
	sel := b.try(`(all("main", "control", "source").filter(el => el.value === "").map(mark)[0] || "")`)
	if sel == "" {
		b.fail("Add rule added no empty row")
	}
	return b.try(fmt.Sprintf("rowOf(%s, %s)", js(sel), js("source")))
}
