package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"cloudplane/e2e/browser"
)

// Support must give a reason to change an account, beside every quota
// the CLI sets with its usage; the owner then reads on their overview
// what support changed and why, not "Account changed by the operator".
func TestSupportAccountReasonReachesTheOwner(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	agent := owner{email: fmt.Sprintf("%s-agent-%d@example.com", browser.Slug(t.Name()), owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", agent.email, "--password", agent.password, "--role", "support")

	b := s.newTab(t)
	b.signIn(agent)
	b.Open("/accounts?email=" + url.QueryEscape(o.email))
	b.Press("main", "^"+regexp.QuoteMeta(o.email)+"$")
	b.WaitText("main h1", regexp.QuoteMeta(o.email))
	b.WaitText("main", `0 of \d+ filesystems`)
	b.WaitText("main", `0 of \d+ fabric partitions`)
	if !b.Has("main", "clickable", "tickets") || !b.Has("main", "clickable", "webhook deliveries") {
		b.Fail("the account page has no links to the account's tickets and webhook deliveries")
	}
	b.Fill("main", "^Filesystem quota", "50")
	b.Press("main", "^Save changes$")
	b.WantFieldError("main", "^Reason", "Say why")
	b.Shot("support account change without a reason")
	b.Fill("main", "^Reason", "Raised for ticket #12: the migration needs 40")
	b.Press("main", "^Save changes$")
	b.WaitText("#flash", "Account saved")
	b.WaitText("main", "0 of 50 filesystems")
	b.Shot("support account page with usage")
	b.signOut()

	b.signIn(o)
	b.WaitText("main", regexp.QuoteMeta("Support raised your filesystem quota to 50: Raised for ticket #12: the migration needs 40"))
	b.Shot("owner reads support's reason")
}

// A new owner's overview lists the first steps as links, ticks each as it
// is done, and drops the list once all four are done.
func TestOverviewFirstRunChecklist(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.WaitText("main .checklist", "0 of 4 done")
	b.Shot("first-run checklist")
	b.Press("main .checklist", "^Generate an API key")
	b.WaitText("main h1", "^API keys$")

	key := s.apiKey(t, o)
	b.Open("/")
	b.WaitText("main .checklist", "1 of 4 done")
	if done := b.Text("main .checklist-done a"); done != "Generate an API key" {
		b.Fail("the ticked step is %q, want the API key", done)
	}
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]string{"name": "first-key"}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/instance-operations/launch", map[string]any{"region_name": "us-east-1",
		"instance_type_name": "gpu_1x_a10", "ssh_key_names": []string{"first-key"}, "name": "first"}).ok(t, http.StatusOK, nil)
	b.Open("/")
	b.WaitText("main .checklist", "3 of 4 done")
	b.Shot("first-run checklist three done")

	b.Press("main .checklist", "^Set up a webhook endpoint")
	b.Fill("main", "^URL$", "https://hooks.example.com/first")
	b.Press("main", "^Add endpoint$")
	b.WaitText("main", "Your endpoint is set up")
	b.Open("/")
	b.WaitText("main", "Resources")
	if b.Has("main", "section", "get started") || b.Try(`document.querySelector("main .checklist") ? "shown" : ""`) != "" {
		b.Fail("the checklist still shows with every step done")
	}
}
