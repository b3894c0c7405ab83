package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
)

// Support staff read the platform's audit log: their own and colleagues'
// sign-ins, internal notes, staff users; none of an account's events,
// and no filter for owners' actions. Their export holds the same.
func TestSupportReadsThePlatformsAuditLog(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	e.user("second@example.com", models.RoleSupport)
	tk := e.ticket(ada, "GPU missing")
	s := e.signedIn("help@example.com")
	s.post("/tickets/"+tk.ID+"/notes", url.Values{"note": {"asked storage"}}).redirectsTo("/tickets/" + tk.ID)
	e.signedIn("second@example.com")

	s.get("/").expect(http.StatusOK).contains(`href="/audit-events"`)
	res := s.get("/audit-events").expect(http.StatusOK).
		contains(`href="/audit-events" aria-current="page"`, "What happens outside any account",
			`Internal note added to support ticket <a href="/tickets/`+tk.ID+`">“GPU missing”</a>`, "Signed in to the dashboard", "Support (second@example.com)",
			"User created: “help@example.com”", "The operator", `<option value="support">Support staff</option>`,
			"<code>lrn:cloud:ticket:"+tk.ID+"</code>").
		lacks(`<option value="owner">`, "opened", "ada@example.com", "lrn:cloud:account:")
	// help's and second's creation and sign-ins, and the note.
	if ids := res.eventIDs(); len(ids) != 5 {
		t.Fatalf("%d events, want 5:\n%s", len(ids), res.Body)
	}

	csv := s.get("/audit-events/export?format=csv").expect(http.StatusOK)
	if lines := strings.Count(strings.TrimSpace(csv.Body), "\n"); lines != 5 || strings.Contains(csv.Body, "ada@example.com") ||
		!strings.Contains(csv.Body, "note_added") {
		t.Fatalf("export of %d events:\n%s", lines, csv.Body)
	}

	// Ada's log has none of it.
	e.signedIn("ada@example.com").get("/audit-events").expect(http.StatusOK).
		contains("Every change to your account", "“GPU missing”</a> opened").
		lacks("note_added", "help@example.com", "second@example.com", "Support staff")
}
