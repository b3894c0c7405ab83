package api_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func (e *env) inboundRules() []models.FirewallRule {
	e.t.Helper()
	var rules []models.FirewallRule
	e.do(http.MethodGet, "/api/v1/firewall-rules", nil).expect(http.StatusOK).data(&rules)
	return rules
}

func TestInboundRulesStartWithSSH(t *testing.T) {
	e := newEnv(t)
	if rules := e.inboundRules(); !reflect.DeepEqual(rules, []models.FirewallRule{models.DefaultInboundRule()}) {
		t.Fatalf("new account's rules %+v", rules)
	}
}

func TestReplaceInboundRules(t *testing.T) {
	e := newEnv(t)
	sent := []models.FirewallRule{
		{Protocol: "tcp", PortRange: []int{443, 443}, SourceNetwork: "203.0.113.7", Description: "HTTPS from the office"},
		{Protocol: "icmp", SourceNetwork: "0.0.0.0/0", Description: ""},
	}
	want := []models.FirewallRule{sent[0], sent[1]}
	want[0].SourceNetwork = "203.0.113.7/32"

	var got []models.FirewallRule
	e.do(http.MethodPut, "/api/v1/firewall-rules", map[string]any{"data": sent}).expect(http.StatusOK).data(&got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answered %+v\nwant %+v", got, want)
	}
	if rules := e.inboundRules(); !reflect.DeepEqual(rules, want) {
		t.Fatalf("stored %+v", rules)
	}

	// An empty list allows nothing in; it is answered as [], not null.
	r := e.do(http.MethodPut, "/api/v1/firewall-rules", `{"data": []}`).expect(http.StatusOK)
	if !strings.Contains(string(r.Body), `"data":[]`) {
		t.Fatalf("body %s", r.Body)
	}
	if rules := e.inboundRules(); len(rules) != 0 {
		t.Fatalf("stored %+v", rules)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_rules"); n != 2 {
		t.Fatalf("%d audit events for 2 changes", n)
	}

	// Another account's rules are its own.
	stranger := e.stranger()
	e.doAs(stranger, http.MethodPut, "/api/v1/firewall-rules", map[string]any{"data": sent}).expect(http.StatusOK)
	if rules := e.inboundRules(); len(rules) != 0 {
		t.Fatalf("changed by another account: %+v", rules)
	}
}

func TestReplaceInboundRulesRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	tooMany := make([]map[string]any, models.MaxFirewallRules+1)
	for i := range tooMany {
		tooMany[i] = map[string]any{"protocol": "icmp", "source_network": "0.0.0.0/0", "description": ""}
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no body", "", ""},
		{"data missing", `{}`, "data"},
		{"data null", `{"data": null}`, "data"},
		{"data not a list", `{"data": {}}`, "data"},
		{"a bare list", `[]`, ""},
		{"too many rules", map[string]any{"data": tooMany}, "data"},
		{"protocol not a string", `{"data": [{"protocol": 6, "port_range": [22, 22], "source_network": "0.0.0.0/0"}]}`, "data.protocol"},
		{"ports not numbers", `{"data": [{"protocol": "tcp", "port_range": ["22", "22"], "source_network": "0.0.0.0/0"}]}`, "data.port_range"},
		{"tcp without ports", `{"data": [{"protocol": "tcp", "source_network": "0.0.0.0/0"}]}`, "data.0.port_range"},
		{"icmp with ports", `{"data": [{"protocol": "icmp", "port_range": [1, 1], "source_network": "0.0.0.0/0"}]}`, "data.0.port_range"},
		{"second rule private", `{"data": [{"protocol": "icmp", "source_network": "0.0.0.0/0"},` +
			`{"protocol": "udp", "port_range": [53, 53], "source_network": "192.168.0.0/16"}]}`, "data.1.source_network"},
		{"description too long", map[string]any{"data": []map[string]any{{"protocol": "icmp", "source_network": "0.0.0.0/0",
			"description": strings.Repeat("x", 129)}}}, "data.0.description"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPut, "/api/v1/firewall-rules", tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
	}
	if rules := e.inboundRules(); len(rules) != 1 {
		t.Fatalf("refused changes changed the rules: %+v", rules)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_rules"); n != 0 {
		t.Fatalf("%d audit events for refused changes", n)
	}
}

type globalRulesetOut struct {
	ID    string                `json:"id"`
	Name  string                `json:"name"`
	Rules []models.FirewallRule `json:"rules"`
}

func (e *env) globalRuleset() globalRulesetOut {
	e.t.Helper()
	var g globalRulesetOut
	e.do(http.MethodGet, "/api/v1/firewall-rulesets/global", nil).expect(http.StatusOK).data(&g)
	return g
}

func TestGlobalRuleset(t *testing.T) {
	e := newEnv(t)
	empty := globalRulesetOut{ID: "global", Name: models.GlobalRulesetName, Rules: []models.FirewallRule{}}
	if g := e.globalRuleset(); !reflect.DeepEqual(g, empty) {
		t.Fatalf("new account's global ruleset %+v", g)
	}

	rule := models.FirewallRule{Protocol: "udp", PortRange: []int{60000, 61000}, SourceNetwork: "198.51.100.0/24", Description: "mosh"}
	want := globalRulesetOut{ID: "global", Name: models.GlobalRulesetName, Rules: []models.FirewallRule{rule}}
	var got globalRulesetOut
	// id and name are fixed: sending them changes nothing.
	e.do(http.MethodPatch, "/api/v1/firewall-rulesets/global", map[string]any{"id": "mine", "name": "Mine", "rules": want.Rules}).
		expect(http.StatusOK).data(&got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answered %+v", got)
	}
	for _, body := range []string{`{}`, `{"rules": null}`} {
		e.do(http.MethodPatch, "/api/v1/firewall-rulesets/global", body).expect(http.StatusOK).data(&got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s changed the rules: %+v", body, got)
		}
	}
	if g := e.globalRuleset(); !reflect.DeepEqual(g, want) {
		t.Fatalf("stored %+v", g)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "global_firewall_ruleset"); n != 1 {
		t.Fatalf("%d audit events, want 1: patches without rules change nothing", n)
	}

	var theirs globalRulesetOut
	e.doAs(e.stranger(), http.MethodGet, "/api/v1/firewall-rulesets/global", nil).expect(http.StatusOK).data(&theirs)
	if len(theirs.Rules) != 0 {
		t.Fatalf("another account sees our global rules: %+v", theirs)
	}
}

func TestUpdateGlobalRulesetRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, body, field string
	}{
		{"no body", "", ""},
		{"rules not a list", `{"rules": "all"}`, "rules"},
		{"rule without protocol", `{"rules": [{"port_range": [22, 22], "source_network": "0.0.0.0/0"}]}`, "rules.0.protocol"},
		{"rule with host bits", `{"rules": [{"protocol": "all", "port_range": [1, 65535], "source_network": "198.51.100.1/24"}]}`, "rules.0.source_network"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPatch, "/api/v1/firewall-rulesets/global", tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "global_firewall_ruleset"); n != 0 {
		t.Fatalf("%d audit events for refused changes", n)
	}
}
