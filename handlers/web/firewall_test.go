package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// rule is one row of a rules editor as typed: protocol, port range,
// source network, description.
type rule [4]string

// rulesForm is a rules editor's form with rows numbered from 0, plus any
// other fields.
func rulesForm(other url.Values, rows ...rule) url.Values {
	form := url.Values{}
	for k, v := range other {
		form[k] = v
	}
	for i, r := range rows {
		at := "rules." + strconv.Itoa(i) + "."
		form.Set(at+"protocol", r[0])
		form.Set(at+"port_range", r[1])
		form.Set(at+"source_network", r[2])
		form.Set(at+"description", r[3])
	}
	return form
}

func (e *env) inboundRules(u *models.User) []models.FirewallRule {
	e.t.Helper()
	return modelstest.Must[models.RuleList](e.t)(e.store.InboundFirewallRules(context.Background(), u.Actor())).Rules
}

func TestInboundRulesPage(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/firewall").expect(http.StatusOK).
		contains("<h1>Firewall</h1>", `href="/firewall" aria-current="page">Firewall`,
			`href="/firewall" aria-current="page">Inbound rules`, "do not apply in <strong>us-south-1</strong>",
			`<option value="tcp" selected>TCP</option>`, `name="rules.0.port_range" type="text" value="22"`,
			`name="rules.0.source_network" type="text" value="0.0.0.0/0"`, `value="Allow SSH from anywhere"`,
			`name="remove_rule" value="0"`, `name="add_rule"`, "data-rule-template", `name="rules.__i__.protocol"`).
		lacks("rules.1.", "Nothing was saved")
}

// Saving replaces the list with the rows as the domain reads them: blank
// rows are ignored, port ranges are read from what people type, and a
// bare address becomes a /32.
func TestSaveInboundRules(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	b.post("/firewall", rulesForm(nil,
		rule{"tcp", "22", "0.0.0.0/0", "SSH"},
		rule{"tcp", "", "", ""}, // blank: ignored
		rule{"udp", " 8000 – 8080 ", "203.0.113.7", "Dev servers"},
		rule{"icmp", "", "0.0.0.0/0", ""},
	)).expect(http.StatusSeeOther).redirectsTo("/firewall")
	want := []models.FirewallRule{
		{Protocol: "tcp", PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0", Description: "SSH"},
		{Protocol: "udp", PortRange: []int{8000, 8080}, SourceNetwork: "203.0.113.7/32", Description: "Dev servers"},
		{Protocol: "icmp", SourceNetwork: "0.0.0.0/0"},
	}
	if got := e.inboundRules(ada); !reflect.DeepEqual(got, want) {
		t.Fatalf("saved %+v\nwant %+v", got, want)
	}
	b.get("/firewall").expect(http.StatusOK).
		contains("Inbound rules saved.", `name="rules.1.port_range" type="text" value="8000-8080"`,
			`value="203.0.113.7/32"`, `<option value="icmp" selected>ICMP</option>`).lacks("rules.3.")
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "firewall_rules" || ev.Action != "updated" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Inbound firewall rules changed")

	// No rows at all is a list of no rules, which the page explains.
	b.post("/firewall", url.Values{}).expect(http.StatusSeeOther)
	if got := e.inboundRules(ada); got == nil || len(got) != 0 {
		t.Fatalf("saved %#v, want no rules", got)
	}
	b.get("/firewall").expect(http.StatusOK).contains("No inbound rules: nothing from the internet can reach your instances.")
}

// A refused save shows each problem beside its row and field, numbered as
// shown: blank rows dropped before the domain counts. Nothing is saved.
func TestSaveInboundRulesShowsErrorsBesideTheRow(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	res := b.post("/firewall", rulesForm(nil,
		rule{"tcp", "22", "0.0.0.0/0", "fine"},
		rule{"tcp", "", "", ""}, // blank: dropped, so the rows below move up one
		rule{"tcp", "ssh", "10.0.0.0/8", "unreadable port, private network"},
		rule{"icmp", "7", "0.0.0.0/0", "ports with icmp"},
		rule{"udp", "70000", "203.0.113.9/24", strings.Repeat("d", 129)},
		rule{"gre", "", "0.0.0.0/0", "no such protocol"},
		rule{"all", "", "0.0.0.0/0", "all needs ports"},
	)).expect(http.StatusUnprocessableEntity)
	res.contains("Nothing was saved. Fix the rules marked below", `value="ssh"`, "<!doctype html>").
		fieldError("rules.1.port_range", "Port range must be one port such as 22, or a range such as 8000-8080.").
		fieldError("rules.1.source_network", `Source network: "10.0.0.0/8" is not a public network.`).
		fieldError("rules.2.port_range", "Port range is not allowed for protocol icmp.").
		fieldError("rules.3.port_range", "Ports must be within 1-65535 with min <= max.").
		fieldError("rules.3.source_network", `Source network: "203.0.113.9/24" has host bits set; did you mean 203.0.113.0/24?`).
		fieldError("rules.3.description", "Description must be at most 128 characters, got 129.").
		fieldError("rules.4.protocol", `Protocol must be tcp, udp, icmp or all, not "gre".`).
		fieldError("rules.5.port_range", "Port range is required for protocol all.").
		lacks("rules.6.", `id="field-rules.0.`+"port_range-error")
	if got := e.inboundRules(ada); !reflect.DeepEqual(got, []models.FirewallRule{models.DefaultInboundRule()}) {
		t.Fatalf("saved %+v", got)
	}

	// With only an unreadable port, the domain finds nothing else; still
	// nothing is saved.
	b.post("/firewall", rulesForm(nil, rule{"tcp", "1-2-3", "0.0.0.0/0", ""})).expect(http.StatusUnprocessableEntity).
		fieldError("rules.0.port_range", "Port range must be one port such as 22, or a range such as 8000-8080.")

	// A problem with the list as a whole goes above it.
	rows := make([]rule, models.MaxFirewallRules+1)
	for i := range rows {
		rows[i] = rule{"icmp", "", "0.0.0.0/0", ""}
	}
	b.htmx = true
	b.post("/firewall", rulesForm(nil, rows...)).expect(http.StatusUnprocessableEntity).
		contains("At most 100 rules are allowed, got 101.").lacks("<!doctype html>")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "firewall_rules"); n != 0 {
		t.Fatalf("%d events for refused saves", n)
	}
}

// Without script, "Add rule" and "Remove" submit the form: it comes back
// with the row added or removed and what was typed kept, and nothing is
// saved until "Save rules".
func TestRulesEditorWithoutScript(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	typed := rulesForm(url.Values{"add_rule": {"1"}}, rule{"tcp", "22", "0.0.0.0/0", "SSH"}, rule{"udp", "53", "198.51.100.0/24", "half typed"})
	b.post("/firewall", typed).expect(http.StatusOK).
		contains(`value="half typed"`, `name="rules.2.protocol"`, `name="remove_rule" value="2"`).lacks("rules.3.", "saved")

	removed := rulesForm(url.Values{"remove_rule": {"0"}}, rule{"tcp", "22", "0.0.0.0/0", "SSH"}, rule{"udp", "53", "198.51.100.0/24", "kept"})
	b.post("/firewall", removed).expect(http.StatusOK).
		contains(`name="rules.0.description" type="text" value="kept"`).lacks(`value="SSH"`, "rules.1.")

	if got := e.inboundRules(ada); !reflect.DeepEqual(got, []models.FirewallRule{models.DefaultInboundRule()}) {
		t.Fatalf("changed without saving: %+v", got)
	}
	// Enter in a field submits the first button, which saves.
	b.get("/firewall").expect(http.StatusOK).contains(`<form method="post" action="/firewall" class="rules-form" novalidate><button type="submit" class="visually-hidden" tabindex="-1" aria-hidden="true">Save</button>`)
}

func TestGlobalRules(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/firewall/global").expect(http.StatusOK).
		contains(`href="/firewall/global" aria-current="page">Global rules`, "in every region", "No global rules.")
	e.clock.Advance(time.Second)
	b.post("/firewall/global", rulesForm(nil, rule{"udp", "51820", "0.0.0.0/0", "WireGuard"})).
		expect(http.StatusSeeOther).redirectsTo("/firewall/global")
	b.get("/firewall/global").expect(http.StatusOK).contains("Global rules saved.", `value="51820"`, `value="WireGuard"`)
	global, err := e.store.GlobalFirewallRules(context.Background(), ada.Actor())
	if rules := global.Rules; err != nil || len(rules) != 1 || rules[0].PortRange[0] != 51820 {
		t.Fatalf("global rules %+v, %v", rules, err)
	}
	b.get("/").contains("Global firewall rules changed")

	// The global ruleset's errors are keyed "rules", the inbound rules'
	// "data": both land beside the row.
	b.post("/firewall/global", rulesForm(nil, rule{"tcp", "22", "0.0.0.0/0", ""}, rule{"tcp", "443", "", ""})).
		expect(http.StatusUnprocessableEntity).
		fieldError("rules.1.source_network", "Source network is required, e.g. 0.0.0.0/0 or 203.0.113.7.")
	b.post("/firewall/global", rulesForm(url.Values{"add_rule": {"1"}})).expect(http.StatusOK).contains(`name="rules.0.protocol"`)
}

// htmx gets each firewall page as the same content without the document.
func TestFirewallFragments(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	for _, path := range []string{"/firewall", "/firewall/global", "/firewall/rulesets", "/firewall/rulesets/new", "/filesystems"} {
		full := b.get(path).expect(http.StatusOK)
		b.htmx = true
		frag := b.get(path).expect(http.StatusOK).contains(`hx-swap-oob="true"`).lacks("<!doctype html>", "<main")
		b.htmx = false
		main := full.Body[strings.Index(full.Body, `<div id="flash"`):strings.Index(full.Body, "</main>")]
		if !strings.Contains(frag.Body, main) {
			t.Fatalf("%s: fragment differs from the page's main", path)
		}
	}
}
