package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
)

// bigTicket opens a ticket and comments on it with the largest comments
// until the text cap refuses one, which must be 400 naming comment.body.
// It returns the ticket's id and how many comments got in.
func (e *env) bigTicket() (string, int) {
	e.t.Helper()
	id := e.createTicket(incidentBody)
	comment := map[string]any{"comment": map[string]any{"body": strings.Repeat("x", models.MaxTicketText)}}
	for n := 0; n <= models.MaxTicketTextBytes/models.MaxTicketText; n++ {
		r := e.do(http.MethodPatch, "/api/v1/tickets/"+id, comment)
		if r.Status == http.StatusAccepted {
			continue
		}
		r.expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), "comment.body:") {
			e.t.Fatalf("refusal does not name comment.body: %s", r.message())
		}
		return id, n
	}
	e.t.Fatalf("%d comments of %d characters accepted: the ticket's text is not capped", models.MaxTicketTextBytes/models.MaxTicketText+1, models.MaxTicketText)
	return "", 0
}

// The attack of the abuse report: comment a ticket up to any size, then
// list. A ticket's text now stops at the cap, the single read carries all
// of it, and a list of large tickets is cut into pages of about the
// budget (each answer checked against the reference by the env).
func TestTicketTextIsBounded(t *testing.T) {
	e := newEnv(t)
	first, n := e.bigTicket()
	if n != 15 {
		t.Fatalf("%d comments of 64 KiB accepted, want 15 (1 MiB with subject and description)", n)
	}
	if got := e.getTicket(first); len(got.Comments) != n+1 {
		t.Fatalf("the ticket carries %d comments, want %d", len(got.Comments), n+1)
	}
	second, _ := e.bigTicket()
	seen := map[string]bool{}
	path := "/api/v1/tickets"
	for pages := 0; pages < 3; pages++ {
		r := e.do(http.MethodGet, path, nil).expect(http.StatusOK)
		t.Logf("list page of %d bytes", len(r.Body))
		if len(r.Body) > 2*models.TicketListTextBudget {
			t.Fatalf("a list page of %d bytes", len(r.Body))
		}
		var page ticketList
		r.data(&page)
		for _, tk := range page.Tickets {
			seen[tk.ID] = len(tk.Comments) == n+1
		}
		if page.PageToken == nil {
			break
		}
		path = "/api/v1/tickets?page_token=" + url.QueryEscape(*page.PageToken)
	}
	if len(seen) != 2 || !seen[first] || !seen[second] {
		t.Fatalf("listing gave %v, want both tickets with all their comments", seen)
	}
}
