package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/views"
)

// Support takes a ticket and writes an internal note; the owner sees the
// assignment as Support's and never the note or the agent's email.
func TestSupportAssignsAndNotes(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	other := e.user("second@example.com", models.RoleSupport)
	tk := e.ticket(ada, "GPU missing")
	const note = "Card declined twice; check billing before answering."

	s := e.signedIn("help@example.com")
	s.get("/tickets/"+tk.ID).expect(http.StatusOK).
		contains("Assign to me", `name="from" value=""`, `<option value="`+other.ID+`">second@example.com</option>`,
			`name="body"`, `name="kind" value="note"`, "Only support sees this")
	s.post("/tickets/"+tk.ID+"/assignee", url.Values{"assignee": {help.ID}, "from": {""}}).redirectsTo("/tickets/" + tk.ID)
	s.get("/tickets/"+tk.ID).expect(http.StatusOK).
		contains("Ticket assigned to you.", `<p id="assignee-now">help@example.com</p>`, "assigned the ticket to help@example.com").
		lacks("Assign to me")
	s.post("/tickets/"+tk.ID+"/reply", url.Values{"kind": {"note"}, "body": {""}}).expect(http.StatusUnprocessableEntity).fieldError("body", "Message is required.")
	s.post("/tickets/"+tk.ID+"/notes", url.Values{"note": {note}}).redirectsTo("/tickets/" + tk.ID)
	s.post("/tickets/"+tk.ID+"/comments", url.Values{"comment": {"We are looking into it."}}).redirectsTo("/tickets/" + tk.ID)
	s.get("/tickets/"+tk.ID).expect(http.StatusOK).contains(note, "Internal note", `<span class="comment-author">You</span>`)

	// A second agent working from a stale page is told who has it.
	o := e.signedIn("second@example.com")
	o.post("/tickets/"+tk.ID+"/assignee", url.Values{"assignee": {other.ID}, "from": {""}}).expect(http.StatusConflict).
		contains("The assignee did not change", "it is now assigned to help@example.com")
	o.get("/tickets/"+tk.ID).expect(http.StatusOK).
		contains(note, `<span class="comment-author">help@example.com</span>`, "We are looking into it.")

	b := e.signedIn("ada@example.com")
	b.get("/tickets/"+tk.ID).expect(http.StatusOK).
		contains("We are looking into it.", "assigned the ticket to an agent", `<span class="comment-author">Support agent</span>`).
		lacks(note, "Internal note", "help@example.com", "Assign to me", `name="kind"`, "Only support sees this")
	b.post("/tickets/"+tk.ID+"/notes", url.Values{"note": {"let me in"}}).expect(http.StatusForbidden)
	b.post("/tickets/"+tk.ID+"/assignee", url.Values{"assignee": {""}}).expect(http.StatusForbidden)
	acts, err := e.store.TicketActivities(context.Background(), help.Actor(), tk.ID)
	if err != nil || len(acts) != 3 { // assigned, the note, and new -> open by the first reply
		t.Fatalf("activities after the owner's attempts: %d %v", len(acts), err)
	}
}

// The queue filters by assignee and age, sorts, names accounts by email,
// and keeps every filter in the link to the next page.
func TestSupportQueueFilters(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	mine := e.ticket(ada, "mine")
	for range models.TicketPageSize + 1 {
		e.ticket(ada, "bulk")
	}
	if _, err := e.store.AssignTicket(context.Background(), help.Actor(), mine.ID, models.AssignTicketInput{Assignee: help.ID}); err != nil {
		t.Fatal(err)
	}
	s := e.signedIn("help@example.com")
	s.get("/tickets?assignee=mine").expect(http.StatusOK).
		contains(`href="/tickets/`+mine.ID+`"`, "ada@example.com", `href="/tickets?account=ada%40example.com"`,
			`<option value="mine" selected>Assigned to me</option>`).
		lacks(">bulk<", ">Account "+views.ShortID(*ada.AccountID))
	page := s.get("/tickets?assignee=unassigned&sort=severity&status=new").expect(http.StatusOK).lacks(`href="/tickets/` + mine.ID + `"`)
	next := regexpFind(t, page.Body, `href="(/tickets\?[^"]*page_token=[^"]*)"`)
	for _, kept := range []string{"assignee=unassigned", "sort=severity", "status=new"} {
		if !strings.Contains(next, kept) {
			t.Fatalf("next page %q lost %s", next, kept)
		}
	}
	s.get(strings.ReplaceAll(next, "&amp;", "&")).expect(http.StatusOK).contains(">bulk<").lacks(`href="/tickets/` + mine.ID + `"`)
	s.get("/tickets?age=30d").expect(http.StatusOK).contains("No tickets match these filters")
	s.get("/tickets?sort=random").expect(http.StatusUnprocessableEntity).fieldError("sort", "Choose one of the orders offered.")
	s.get("/tickets?assignee=nobody").expect(http.StatusUnprocessableEntity)
	// Owners have no such filters.
	e.signedIn("ada@example.com").get("/tickets?assignee=mine").expect(http.StatusOK).lacks(`name="assignee"`)
}

// Support changes an account as the CLI can; owners never reach the pages.
func TestSupportAccountsPages(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	e.user("help@example.com", models.RoleSupport)
	_, key := e.apiKey(ada, "script")
	id := *ada.AccountID

	b := e.signedIn("ada@example.com")
	b.get("/").lacks(`href="/accounts"`)
	b.get("/accounts").expect(http.StatusForbidden).lacks("bob@example.com")
	b.get("/accounts/" + id).expect(http.StatusForbidden)
	b.post("/accounts/"+id, url.Values{"filesystem_quota": {"99"}}).expect(http.StatusForbidden)

	s := e.signedIn("help@example.com")
	s.get("/").contains(`href="/accounts"`)
	s.get("/accounts").expect(http.StatusOK).contains("ada@example.com", "bob@example.com", `href="/accounts/`+id+`"`)
	s.get("/accounts?email=ADA").expect(http.StatusOK).contains("ada@example.com").lacks("bob@example.com")
	s.get("/accounts/"+id).expect(http.StatusOK).
		contains("<h1>ada@example.com</h1>", `<option value="active" selected>`, `name="filesystem_quota"`)
	s.get("/accounts/" + models.NewID()).expect(http.StatusNotFound)
	s.post("/accounts/"+id, url.Values{"filesystem_quota": {"many"}, "ruleset_quota": {"-1"}}).
		expect(http.StatusUnprocessableEntity).fieldError("filesystem_quota", "Filesystem quota must be a whole number.")
	s.post("/accounts/"+id, url.Values{"ruleset_quota": {"-1"}}).
		expect(http.StatusUnprocessableEntity).fieldError("ruleset_quota", "Firewall ruleset quota must not be negative.")

	if got := e.apiStatus(key, "/api/v1/ssh-keys"); got != http.StatusOK {
		t.Fatalf("key before deactivation: %d", got)
	}
	s.post("/accounts/"+id, url.Values{"status": {"inactive"}, "billing": {"invalid"}, "filesystem_quota": {"7"}, "ruleset_quota": {"3"},
		"reason": {"Unpaid invoices"}}).redirectsTo("/accounts/" + id)
	s.get("/accounts/"+id).contains("Account saved.", "0 of 7 filesystems", "0 of 3 rulesets", `<option value="inactive" selected>`)
	if got := e.apiStatus(key, "/api/v1/ssh-keys"); got != http.StatusForbidden {
		t.Fatalf("key of the deactivated account: %d, want 403", got)
	}
	a, _ := e.store.Account(context.Background(), id)
	if a.Status != models.AccountInactive || a.BillingAddressValid || a.FilesystemQuota != 7 || a.RulesetQuota != 3 {
		t.Fatalf("account %+v", a)
	}
}

// The delivery log's support view names accounts by owner email.
func TestDeliveryLogNamesAccountsForSupport(t *testing.T) {
	l := newDeliveryLog(t)
	s := l.signedIn("help@example.com")
	s.get("/webhook-deliveries").expect(http.StatusOK).contains(`><span class="truncate" title="ada@example.com">ada@example.com</span></a>`, `><span class="truncate" title="bob@example.com">bob@example.com</span></a>`)
	s.get("/webhook-deliveries/" + l.failed).expect(http.StatusOK).contains(">bob@example.com</a>")
}

func regexpFind(t *testing.T, body, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no match for %s", pattern)
	}
	return m[1]
}
