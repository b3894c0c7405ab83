package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
)

// Support staff see no filesystems or firewall rules: no links, no pages,
// no actions, not even the form round trips that save nothing.
func TestSupportStaffSeeNoStorageOrFirewall(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	f := e.filesystem(ada, "adas-data", "us-east-1")
	r := e.ruleset(ada, "Adas ruleset", "us-east-1", https)
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/").expect(http.StatusOK).lacks(`href="/filesystems"`, `href="/firewall"`)
	for _, path := range []string{"/filesystems", "/filesystems/" + f.ID + "/delete", "/firewall", "/firewall/global",
		"/firewall/rulesets", "/firewall/rulesets/new", "/firewall/rulesets/" + r.ID, "/firewall/rulesets/" + r.ID + "/delete"} {
		s.get(path).expect(http.StatusForbidden).lacks("adas-data", "Adas ruleset")
	}
	add := url.Values{"name": {"x"}, "region": {"us-east-1"}, "add_rule": {"1"}}
	for _, path := range []string{"/filesystems", "/filesystems/" + f.ID + "/delete", "/firewall", "/firewall/global",
		"/firewall/rulesets", "/firewall/rulesets/" + r.ID, "/firewall/rulesets/" + r.ID + "/delete"} {
		s.post(path, rulesForm(url.Values{"name": {"x"}, "region": {"us-east-1"}}, rule{"tcp", "22", "0.0.0.0/0", ""})).
			expect(http.StatusForbidden)
		s.post(path, add).expect(http.StatusForbidden)
	}
	if len(e.rulesets(ada)) != 1 || len(e.inboundRules(ada)) != 1 {
		t.Fatal("support staff changed an account")
	}
}

// Every form of these pages needs the CSRF token; nothing changes without.
func TestStorageAndFirewallFormsNeedCSRF(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	f := e.filesystem(ada, "keep", "us-east-1")
	r := e.ruleset(ada, "Keep", "us-east-1", https)
	b := e.signedIn("ada@example.com")
	rules := rulesForm(url.Values{"name": {"changed"}, "region": {"us-east-1"}}, rule{"udp", "53", "0.0.0.0/0", "sneaky"})
	for _, path := range []string{"/filesystems", "/filesystems/" + f.ID + "/delete", "/firewall", "/firewall/global",
		"/firewall/rulesets", "/firewall/rulesets/" + r.ID, "/firewall/rulesets/" + r.ID + "/delete"} {
		for _, token := range []string{"" /* missing */, strings.Repeat("0", 64) /* wrong */} {
			form := url.Values{"csrf_token": {token}}
			for k, v := range rules {
				form[k] = v
			}
			b.post(path, form).expect(http.StatusForbidden).contains("This form has expired")
		}
	}
	b.get("/filesystems").expect(http.StatusOK).contains("keep").lacks("changed")
	if got := e.rulesets(ada); len(got) != 1 || got[0].Name != "Keep" {
		t.Fatalf("rulesets %+v", got)
	}
	if got := e.inboundRules(ada); len(got) != 1 || got[0].Protocol != "tcp" {
		t.Fatalf("inbound rules %+v", got)
	}
	b.get("/firewall/global").expect(http.StatusOK).lacks("sneaky")
}

// The overview links its filesystem and ruleset tiles to their pages.
func TestOverviewLinksStorageTiles(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.filesystem(ada, "data", "us-east-1")
	e.signedIn("ada@example.com").get("/").expect(http.StatusOK).
		contains(`<a class="tile-link" href="/filesystems">Manage<span class="visually-hidden"> Filesystems</span>`,
			`<a class="tile-link" href="/firewall/rulesets">Manage<span class="visually-hidden"> Firewall rulesets</span>`)
}

// The pages and their states carry nothing the CSP would block.
func TestStoragePagesHaveNoInlineCode(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	f := e.filesystem(ada, "data", "us-east-1")
	r := e.ruleset(ada, "Web", "us-east-1", https)
	b := e.signedIn("ada@example.com")
	pages := map[string]*page{
		"filesystems": b.get("/filesystems"), "filesystem delete": b.get("/filesystems/" + f.ID + "/delete"),
		"filesystem error": b.post("/filesystems", url.Values{"name": {"1"}}),
		"inbound":          b.get("/firewall"), "inbound error": b.post("/firewall", rulesForm(nil, rule{"tcp", "x", "", ""})),
		"global": b.get("/firewall/global"), "rulesets": b.get("/firewall/rulesets"), "new ruleset": b.get("/firewall/rulesets/new"),
		"ruleset": b.get("/firewall/rulesets/" + r.ID), "ruleset delete": b.get("/firewall/rulesets/" + r.ID + "/delete"),
	}
	for name, p := range pages {
		if inlineScript.MatchString(p.Body) || eventHandler.MatchString(p.Body) || styleAttr.MatchString(p.Body) {
			t.Errorf("%s: inline script, handler or style in\n%s", name, p.Body)
		}
	}
}
