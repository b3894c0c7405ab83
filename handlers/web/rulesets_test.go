package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// ruleset creates a ruleset of u's account through the domain.
func (e *env) ruleset(u *models.User, name, region string, rules ...models.FirewallRule) *models.FirewallRulesetView {
	e.t.Helper()
	if rules == nil {
		rules = []models.FirewallRule{}
	}
	return modelstest.Must[*models.FirewallRulesetView](e.t)(e.store.CreateFirewallRuleset(context.Background(), u.Actor(),
		models.CreateFirewallRulesetInput{Name: name, Region: region, Rules: rules}))
}

func (e *env) rulesets(u *models.User) []models.FirewallRulesetView {
	e.t.Helper()
	return modelstest.Must[[]models.FirewallRulesetView](e.t)(e.store.FirewallRulesets(context.Background(), u.Actor()))
}

var https = models.FirewallRule{Protocol: "tcp", PortRange: []int{443, 443}, SourceNetwork: "0.0.0.0/0", Description: "HTTPS"}

func TestRulesetsEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/firewall/rulesets").expect(http.StatusOK).
		contains(`href="/firewall/rulesets" aria-current="page">Rulesets`, "No rulesets yet", `href="/firewall/rulesets/new"`)
	b.get("/firewall/rulesets/new").expect(http.StatusOK).
		contains("<h1>New firewall ruleset</h1>", `<option value="us-south-1">us-south-1 · Texas, USA (no firewall)</option>`,
			"firewall rules do not apply there", `name="rules.0.protocol"`, "0 of 50 rulesets used", `action="/firewall/rulesets"`)
}

// A ruleset created in the dashboard is listed with its region, rules and
// instances, and recorded as the user's doing.
func TestCreateRuleset(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	b.post("/firewall/rulesets", rulesForm(url.Values{"name": {" Web servers "}, "region": {"us-east-1"}},
		rule{"tcp", "443", "0.0.0.0/0", "HTTPS"}, rule{"tcp", "", "", ""})).
		expect(http.StatusSeeOther).redirectsTo("/firewall/rulesets")
	list := e.rulesets(ada)
	if len(list) != 1 || list[0].Name != "Web servers" || list[0].RegionName != "us-east-1" ||
		!reflect.DeepEqual(list[0].Rules, []models.FirewallRule{https}) {
		t.Fatalf("rulesets %+v", list)
	}
	b.get("/firewall/rulesets").expect(http.StatusOK).
		contains("Ruleset “Web servers” created.", `href="/firewall/rulesets/`+list[0].ID+`">Web servers</a>`,
			"Virginia, USA", ">1 rule<", "None", `datetime="2026-01-02T03:04:06Z"`).lacks("No rulesets yet")
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "firewall_ruleset" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Firewall ruleset “Web servers” created", `href="/firewall/rulesets"`)
}

// Rulesets are not available in us-south-1: the domain refuses it, and
// the page says so beside the region, with other problems beside theirs.
func TestCreateRulesetShowsErrorsBesideFieldsAndRows(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/firewall/rulesets", rulesForm(url.Values{"name": {"Texas"}, "region": {"us-south-1"}},
		rule{"tcp", "22", "0.0.0.0/0", ""}, rule{"tcp", "", "192.168.1.0/24", "office"})).
		expect(http.StatusUnprocessableEntity).
		fieldError("region", "Firewall rules do not apply in us-south-1, so rulesets cannot be created there.").
		fieldError("rules.1.port_range", "Port range is required for protocol tcp.").
		fieldError("rules.1.source_network", `Source network: "192.168.1.0/24" is not a public network.`).
		contains(`value="Texas"`, `<option value="us-south-1" selected>`, `value="office"`)
	b.post("/firewall/rulesets", rulesForm(url.Values{"name": {strings.Repeat("n", 65)}, "region": {"us-east-1"}},
		rule{"udp", "x", "0.0.0.0/0", ""})).
		expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name must be at most 64 characters.").
		fieldError("rules.0.port_range", "Port range must be one port such as 22, or a range such as 8000-8080.")

	// Add and remove rows without script, keeping name and region.
	b.post("/firewall/rulesets", rulesForm(url.Values{"name": {"Draft"}, "region": {"us-west-1"}, "add_rule": {"1"}},
		rule{"tcp", "22", "0.0.0.0/0", ""})).expect(http.StatusOK).
		contains(`value="Draft"`, `<option value="us-west-1" selected>`, `name="rules.1.protocol"`).lacks("Nothing was saved")

	zero := 0
	e.updateAccount("ada@example.com", models.UpdateAccountInput{RulesetQuota: &zero})
	b.post("/firewall/rulesets", rulesForm(url.Values{"name": {"One too many"}, "region": {"us-east-1"}})).
		expect(http.StatusUnprocessableEntity).contains("The account has reached its quota of 0 firewall rulesets", "0 of 0 rulesets used")
	if len(e.rulesets(ada)) != 0 {
		t.Fatal("a refused ruleset was created")
	}
}

func TestEditRuleset(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	r := e.ruleset(ada, "Web", "europe-central-1", https)
	b := e.signedIn("ada@example.com")
	page := "/firewall/rulesets/" + r.ID
	b.get(page).expect(http.StatusOK).
		contains("<h1>Web</h1>", "europe-central-1 · Germany", "not attached to any instance", `name="name" type="text" value="Web"`,
			`value="443"`, `action="`+page+`"`, `href="`+page+`/delete"`).lacks(`name="region"`)

	e.clock.Advance(time.Second)
	b.post(page, rulesForm(url.Values{"name": {"Web and SSH"}}, rule{"tcp", "443", "0.0.0.0/0", "HTTPS"}, rule{"tcp", "22", "198.51.100.7", "SSH"})).
		expect(http.StatusSeeOther).redirectsTo("/firewall/rulesets")
	got := e.rulesets(ada)[0]
	want := []models.FirewallRule{https, {Protocol: "tcp", PortRange: []int{22, 22}, SourceNetwork: "198.51.100.7/32", Description: "SSH"}}
	if got.Name != "Web and SSH" || got.RegionName != "europe-central-1" || !reflect.DeepEqual(got.Rules, want) {
		t.Fatalf("saved %+v", got)
	}
	b.get("/firewall/rulesets").expect(http.StatusOK).contains("Ruleset “Web and SSH” saved.", ">2 rules<")
	b.get("/").contains("Firewall ruleset “Web and SSH” changed")

	// Refused: the saved name stays in the heading, the typed one in the field.
	b.post(page, rulesForm(url.Values{"name": {"  "}}, rule{"tcp", "22", "10.1.2.3", ""})).
		expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name is required.").
		fieldError("rules.0.source_network", `Source network: "10.1.2.3" is not a public network.`).
		contains("<h1>Web and SSH</h1>")
	// Removing every rule is a ruleset that lets nothing in.
	b.post(page, url.Values{"name": {"Closed"}}).expect(http.StatusSeeOther)
	if got := e.rulesets(ada)[0]; got.Name != "Closed" || len(got.Rules) != 0 {
		t.Fatalf("saved %+v", got)
	}
	b.get(page).expect(http.StatusOK).contains("No rules: this ruleset lets nothing in.")
	b.post(page, url.Values{"name": {"Closed"}, "add_rule": {"1"}}).expect(http.StatusOK).contains(`name="rules.0.protocol"`)
	b.get("/firewall/rulesets/global").expect(http.StatusNotFound)
	b.get("/firewall/rulesets/" + models.NewID()).expect(http.StatusNotFound)
}

func TestDeleteRuleset(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	r := e.ruleset(ada, "Old", "us-west-1", https)
	b := e.signedIn("ada@example.com")
	confirm := "/firewall/rulesets/" + r.ID + "/delete"
	b.get(confirm).expect(http.StatusOK).
		contains("<!doctype html>", "Delete “Old”?", "It is deleted with its 1 rule. This cannot be undone.", `action="`+confirm+`?version=1"`, `href="/firewall/rulesets"`)
	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get(confirm).expect(http.StatusOK).contains("Delete “Old”?", "data-dialog-close").lacks("<!doctype html>")
	b.header.Del("HX-Target")
	e.clock.Advance(time.Second)
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/firewall/rulesets")
	b.htmx = false
	b.get("/firewall/rulesets").expect(http.StatusOK).contains("Ruleset “Old” deleted.", "No rulesets yet")
	b.get("/").contains("Firewall ruleset “Old” deleted")
	b.post(confirm, nil).expect(http.StatusNotFound)
}

// A ruleset edited after its deletion was confirmed is not deleted: the
// confirmation's version no longer holds, and the list says why.
func TestDeleteRulesetEditedMeanwhile(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	r := e.ruleset(ada, "Web", "us-east-1", https)
	b := e.signedIn("ada@example.com")
	confirm := "/firewall/rulesets/" + r.ID + "/delete"
	b.get(confirm).expect(http.StatusOK).contains(`action="` + confirm + `?version=1"`)
	name := "Web, edited"
	if _, err := e.store.UpdateFirewallRuleset(context.Background(), ada.Actor(), r.ID,
		models.UpdateFirewallRulesetInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	b.post(confirm+"?version=1", nil).expect(http.StatusPreconditionFailed).
		contains(`class="flash flash-danger"`, "changed after you asked to delete it, so it was not deleted")
	b.post(confirm+"?version=01", nil).expect(http.StatusPreconditionFailed)
	if got := e.rulesets(ada); len(got) != 1 || got[0].Name != name {
		t.Fatalf("rulesets after a stale delete: %+v", got)
	}
	b.post(confirm+"?version=2", nil).expect(http.StatusSeeOther).redirectsTo("/firewall/rulesets")
	if got := e.rulesets(ada); len(got) != 0 {
		t.Fatalf("rulesets after a current delete: %+v", got)
	}
}

// A ruleset attached to a running instance cannot be deleted: the
// confirmation warns, and the refusal says why above the list.
func TestDeleteRulesetInUse(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	r := e.ruleset(ada, "Web", "us-east-1", https)
	modelstest.Attach(t, e.store, e.running(ada).ID, r.ID)
	b := e.signedIn("ada@example.com")
	confirm := "/firewall/rulesets/" + r.ID + "/delete"
	b.get("/firewall/rulesets").expect(http.StatusOK).contains(">1 instance<")
	b.get("/firewall/rulesets/" + r.ID).expect(http.StatusOK).contains("attached to 1 instance")
	b.get(confirm).expect(http.StatusOK).contains("It is attached to an instance: deleting is refused while that instance is running.")
	b.post(confirm, nil).expect(http.StatusUnprocessableEntity).
		contains(`class="flash flash-danger"`, "Firewall ruleset &#34;Web&#34; is attached to a running instance.",
			"Terminate the instances that use the ruleset, then delete it.", ">Web</a>")
	if len(e.rulesets(ada)) != 1 || modelstest.AuditCount(t, e.store, *ada.AccountID, "firewall_ruleset") != 1 {
		t.Fatal("a ruleset in use was deleted")
	}
}

// An owner reaches only their own account's rulesets: another's are not
// found, and stay as they were.
func TestRulesetsOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	r := e.ruleset(ada, "Adas ruleset", "us-east-1", https)
	bob := e.signedIn("bob@example.com")
	page := "/firewall/rulesets/" + r.ID
	bob.get("/firewall/rulesets").expect(http.StatusOK).lacks("Adas ruleset")
	bob.get(page).expect(http.StatusNotFound).lacks("Adas ruleset")
	bob.post(page, rulesForm(url.Values{"name": {"Bobs now"}})).expect(http.StatusNotFound)
	bob.post(page, url.Values{"name": {"Bobs now"}, "add_rule": {"1"}}).expect(http.StatusNotFound)
	bob.get(page + "/delete").expect(http.StatusNotFound).lacks("Adas ruleset")
	bob.post(page+"/delete", nil).expect(http.StatusNotFound)
	if got := e.rulesets(ada); len(got) != 1 || got[0].Name != "Adas ruleset" || len(got[0].Rules) != 1 {
		t.Fatalf("ada's rulesets %+v", got)
	}
}
