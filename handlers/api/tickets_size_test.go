package api_test

import (
	"encoding/json"
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

// jsonTextLen is how many bytes s takes inside a JSON answer.
func jsonTextLen(t *testing.T, s string) int {
	encoded, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return len(encoded) - 2
}

// The budget of a page, and the cap of a ticket, count text as JSON sends
// it: "<" is \u003c, six bytes. Tickets filled with characters JSON
// escapes make pages whose text stays within the budget, and the page
// tokens walk every ticket once, with every comment.
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
		text := jsonTextLen(t, got.Subject) + jsonTextLen(t, got.Description)
		for _, c := range got.Comments {
			text += jsonTextLen(t, c.Body)
		}
		if text > models.MaxTicketTextBytes {
			t.Fatalf("a ticket of %q... holds %d bytes of text as JSON, over the cap of %d", body[:8], text, models.MaxTicketTextBytes)
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
		text := 0
		for _, tk := range page.Tickets {
			seen[tk.ID]++
			if len(tk.Comments) != comments[tk.ID] {
				t.Fatalf("ticket %s listed with %d comments, want %d", tk.ID, len(tk.Comments), comments[tk.ID])
			}
			text += jsonTextLen(t, tk.Subject) + jsonTextLen(t, tk.Description)
			for _, c := range tk.Comments {
				text += jsonTextLen(t, c.Body)
			}
		}
		t.Logf("page %d: %d tickets, %d bytes of text, %d bytes in all", pages, len(page.Tickets), text, len(r.Body))
		if text > models.TicketListTextBudget {
			t.Fatalf("page %d holds %d bytes of text as JSON, over the budget of %d", pages, text, models.TicketListTextBudget)
		}
		// The rest is the structure: keys, ids, times, authors.
		if len(r.Body) > models.TicketListTextBudget+64<<10 {
			t.Fatalf("page %d is %d bytes", pages, len(r.Body))
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
