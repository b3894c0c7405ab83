package web_test

import (
	"net/http"
	"reflect"
	"testing"

	"cloudplane/models"
)

// "My IP" is answered by the server, so it works without script: the form
// comes back with the requester's address (as the trusted proxy names it)
// as a /32 in the new row's source, or in a row of its own; nothing is
// saved until the user saves.
func TestRulesMyIPFillsTheSource(t *testing.T) {
	e := newEnv(t, withTrustedProxies("0.0.0.0"))
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/firewall").contains(`name="my_ip"`, "My IP")
	b.header.Set("X-Real-IP", "203.0.113.7")

	// The empty row just added gets the address.
	b.post("/firewall", rulesForm(map[string][]string{"my_ip": {"1"}},
		rule{"tcp", "22", "0.0.0.0/0", "SSH"}, rule{"tcp", "443", "", ""})).expect(http.StatusOK).
		contains(`name="rules.1.port_range" type="text" value="443"`,
			`name="rules.1.source_network" type="text" value="203.0.113.7/32"`).lacks("rules.2.", "saved.")
	// With no row waiting for a source, a row of its own.
	b.post("/firewall/global", rulesForm(map[string][]string{"my_ip": {"1"}},
		rule{"tcp", "22", "0.0.0.0/0", "SSH"})).expect(http.StatusOK).
		contains(`name="rules.0.source_network" type="text" value="0.0.0.0/0"`,
			`name="rules.1.source_network" type="text" value="203.0.113.7/32"`)
	if got := e.inboundRules(ada); !reflect.DeepEqual(got, []models.FirewallRule{models.DefaultInboundRule()}) {
		t.Fatalf("My IP saved %+v", got)
	}

	// IPv6 is a /128.
	b.header.Set("X-Real-IP", "2001:db8::7")
	b.post("/firewall", rulesForm(map[string][]string{"my_ip": {"1"}})).expect(http.StatusOK).
		contains(`name="rules.0.source_network" type="text" value="2001:db8::7/128"`)
}

// Without trusted proxies the header is whatever the client wrote: the
// address is the peer's own (app.Test's is 0.0.0.0).
func TestRulesMyIPIgnoresUntrustedHeader(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.header.Set("X-Real-IP", "203.0.113.7")
	b.post("/firewall", rulesForm(map[string][]string{"my_ip": {"1"}})).expect(http.StatusOK).
		contains(`name="rules.0.source_network" type="text" value="0.0.0.0/32"`).lacks(`value="203.0.113.7`)
}
