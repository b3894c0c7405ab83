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
	return e.bigTicketOf(strings.Repeat("x", models.MaxTicketText))
}

// bigTicketOf is bigTicket with comments of body.
func (e *env) bigTicketOf(body string) (string, int) {
	e.t.Helper()
	id := e.createTicket(incidentBody)
	comment := map[string]any{"comment": map[string]any{"body": body}}
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
		if len(r.Body) > models.TicketListPageBudget {
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

// The budget of a page, and the cap of a ticket, count the answer's bytes:
// "<" is \u003c, six bytes. Tickets filled with characters JSON escapes
// make pages within the budget, and the page tokens walk every ticket
// once, with every comment.
func TestTicketListBudgetCountsEscapedText(t *testing.T) {
	e := newEnv(t)
	fill := func(unit string) string { // as many units as a comment takes
		return strings.Repeat(unit, models.MaxTicketText/len([]rune(unit)))
	}
	comments := map[string]int{}
	for _, body := range []string{
		fill("<"), fill("&"), fill(">\"\\"), fill("\n\t\r"), fill("\u2028\u2029"), fill("😀<é&"), fill("x"),
	} {
		id, n := e.bigTicketOf(body)
		comments[id] = n + 1 // and the description
		got := e.getTicket(id)
		if len(got.Comments) != n+1 {
			t.Fatalf("ticket of %q...: %d comments, want %d", body[:8], len(got.Comments), n+1)
		}
		if size := len(e.do(http.MethodGet, "/api/v1/tickets/"+id, nil).Body); size > models.TicketListPageBudget {
			t.Fatalf("a ticket of %q... is %d bytes of JSON, over the page budget of %d", body[:8], size, models.TicketListPageBudget)
		}
	}
	// Control characters other than line breaks and tabs are refused, not escaped.
	plain := e.createTicket(incidentBody)
	comments[plain] = 1
	e.do(http.MethodPatch, "/api/v1/tickets/"+plain, map[string]any{"comment": map[string]any{"body": "a\x01b"}}).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters)

	seen := map[string]int{}
	path := "/api/v1/tickets"
	for pages := 0; ; pages++ {
		if pages > len(comments) {
			t.Fatalf("more pages than tickets: the page tokens do not move on")
		}
		r := e.do(http.MethodGet, path, nil).expect(http.StatusOK)
		var page ticketList
		r.data(&page)
		for _, tk := range page.Tickets {
			seen[tk.ID]++
			if len(tk.Comments) != comments[tk.ID] {
				t.Fatalf("ticket %s listed with %d comments, want %d", tk.ID, len(tk.Comments), comments[tk.ID])
			}
		}
		t.Logf("page %d: %d tickets, %d bytes", pages, len(page.Tickets), len(r.Body))
		if len(r.Body) > models.TicketListPageBudget {
			t.Fatalf("page %d is %d bytes, over the budget of %d", pages, len(r.Body), models.TicketListPageBudget)
		}
		if page.PageToken == nil {
			break
		}
		path = "/api/v1/tickets?page_token=" + url.QueryEscape(*page.PageToken)
	}
	for id := range comments {
		if seen[id] != 1 {
			t.Fatalf("ticket %s listed %d times, want once", id, seen[id])
		}
	}
	if len(seen) != len(comments) {
		t.Fatalf("%d tickets listed, want %d", len(seen), len(comments))
	}
}

// Tickets of many short comments are mostly the JSON around their text
// (keys, times, authors): the budget counts it too.
func TestTicketListBudgetCountsTheJSONAroundText(t *testing.T) {
	e := newEnv(t)
	comments := map[string]int{}
	for range 30 {
		id := e.createTicket(incidentBody)
		rows := make([]models.TicketComment, models.MaxTicketComments)
		for i := range rows {
			rows[i] = models.TicketComment{AccountID: e.accountID(), ID: models.NewID(), TicketID: id, Seq: i + 1,
				Author: "owner@example.com", Body: "<", CreatedAt: e.clock.Now()}
		}
		if err := e.store.DB().CreateInBatches(rows, 100).Error; err != nil {
			t.Fatal(err)
		}
		comments[id] = len(rows) + 1
	}
	if err := e.store.AccountChanged(t.Context(), e.accountID()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	path := "/api/v1/tickets"
	for pages := 0; ; pages++ {
		if pages > len(comments) {
			t.Fatalf("more pages than tickets: the page tokens do not move on")
		}
		r := e.do(http.MethodGet, path, nil).expect(http.StatusOK)
		if len(r.Body) > models.TicketListPageBudget {
			t.Fatalf("page %d is %d bytes, over the budget of %d", pages, len(r.Body), models.TicketListPageBudget)
		}
		var page ticketList
		r.data(&page)
		for _, tk := range page.Tickets {
			if seen[tk.ID] || len(tk.Comments) != comments[tk.ID] {
				t.Fatalf("ticket %s listed again, or with %d comments (want %d)", tk.ID, len(tk.Comments), comments[tk.ID])
			}
			seen[tk.ID] = true
		}
		if page.PageToken == nil {
			break
		}
		path = "/api/v1/tickets?page_token=" + url.QueryEscape(*page.PageToken)
	}
	if len(seen) != len(comments) {
		t.Fatalf("%d tickets listed, want %d", len(seen), len(comments))
	}
}
