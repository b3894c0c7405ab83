package models_test

import (
	"strings"
	"testing"

	"cloudplane/models"
)

// fill adds comments to a ticket straight into its table, after the n it
// has, so a test can start next to a cap without thousands of requests.
func (f *ticketFixture) fill(ticketID string, have int, bodies ...string) {
	f.t.Helper()
	accountID := f.owner.AccountID
	rows := make([]models.TicketComment, len(bodies))
	for i, b := range bodies {
		rows[i] = models.TicketComment{AccountID: accountID, ID: models.NewID(), TicketID: ticketID, Seq: have + i, Author: "support", Body: b, CreatedAt: f.store.Now()}
	}
	if err := f.store.DB().CreateInBatches(rows, 100).Error; err != nil {
		f.t.Fatal(err)
	}
}

// commentAtOnce posts n comments on a ticket at the same time and returns
// how many were accepted; every refusal must be CodeInvalidParameters on
// field, so the cap, not a lost race, turned it away.
func (f *ticketFixture) commentAtOnce(ticketID string, n int, body, field string) int {
	f.t.Helper()
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := f.store.UpdateTicket(f.ctx, f.owner, ticketID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}})
			errs <- err
		}()
	}
	accepted := 0
	for range n {
		if err := <-errs; err == nil {
			accepted++
		} else {
			expectCode(f.t, err, models.CodeInvalidParameters, field)
		}
	}
	return accepted
}

// expectContiguous checks that the ticket's comments are numbered 0..n-1
// and returns n and their total size in bytes.
func (f *ticketFixture) expectContiguous(ticketID string) (int, int) {
	f.t.Helper()
	d, err := f.store.Ticket(f.ctx, f.owner, ticketID)
	if err != nil {
		f.t.Fatal(err)
	}
	size := len(d.Subject)
	for i, c := range d.Comments {
		if c.Seq != i {
			f.t.Fatalf("comment %d has seq %d", i, c.Seq)
		}
		size += len(c.Body)
	}
	return len(d.Comments), size
}

// Many owners' tabs commenting at once on a ticket five comments short of
// the cap: exactly five get in, on SQLite and PostgreSQL alike.
func TestTicketCommentCapHoldsUnderConcurrency(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "busy")
	bodies := make([]string, models.MaxTicketComments-5)
	for i := range bodies {
		bodies[i] = "earlier"
	}
	f.fill(tk.ID, 1, bodies...)
	if got := f.commentAtOnce(tk.ID, 24, "one more", "comment"); got != 5 {
		t.Fatalf("%d comments accepted at the cap, want 5", got)
	}
	if n, _ := f.expectContiguous(tk.ID); n != models.MaxTicketComments+1 {
		t.Fatalf("%d rows, want the description and %d comments", n, models.MaxTicketComments)
	}
}

// The same for the text cap: room for five comments and a half.
func TestTicketTextCapHoldsUnderConcurrency(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "busy")
	_, used := f.expectContiguous(tk.ID)
	const body = 8000
	f.fill(tk.ID, 1, strings.Repeat("x", models.MaxTicketTextBytes-used-5*body-body/2))
	if got := f.commentAtOnce(tk.ID, 24, strings.Repeat("y", body), "comment.body"); got != 5 {
		t.Fatalf("%d comments accepted at the cap, want 5", got)
	}
	if _, size := f.expectContiguous(tk.ID); size > models.MaxTicketTextBytes {
		t.Fatalf("ticket holds %d bytes of text, over %d", size, models.MaxTicketTextBytes)
	}
}

// A page of tickets with their comments stops at the text budget and the
// page token carries on, so a listing returns every ticket once while no
// page holds much more than the budget; the summaries read no text.
func TestTicketPagesStayWithinTheTextBudget(t *testing.T) {
	f := newTicketFixture(t)
	want := map[string]int{}
	for i := range 5 {
		tk := f.incident(f.owner, "big")
		f.fill(tk.ID, 1, strings.Repeat("z", models.TicketListPageBudget/3), "and a short one")
		want[tk.ID] = 3
		if i%2 == 0 {
			small := f.incident(f.owner, "small")
			want[small.ID] = 1
		}
		f.clock.Advance(1)
	}
	seen := map[string]int{}
	var token string
	for pages := 0; ; pages++ {
		if pages > len(want) {
			t.Fatal("the listing does not end")
		}
		page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, d := range page.Tickets {
			seen[d.ID] = len(d.Comments)
			for _, c := range d.Comments {
				size += len(c.Body)
			}
		}
		if len(page.Tickets) > 1 && size > models.TicketListPageBudget {
			t.Fatalf("a page of %d tickets holds %d bytes, over the budget", len(page.Tickets), size)
		}
		if page.NextPageToken == nil {
			break
		}
		token = *page.NextPageToken
	}
	if len(seen) != len(want) {
		t.Fatalf("listed %d tickets, want %d", len(seen), len(want))
	}
	for id, n := range want {
		if seen[id] != n {
			t.Fatalf("ticket %s listed with %d comments, want %d", id, seen[id], n)
		}
	}
	page, err := f.store.Tickets(f.ctx, f.owner, models.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tickets) != len(want) || page.NextPageToken != nil {
		t.Fatalf("summaries: %d tickets, token %v", len(page.Tickets), page.NextPageToken)
	}
	for _, s := range page.Tickets {
		if s.Description != "" || s.Requester != "owner@example.com" || s.CommentCount != want[s.ID]-1 {
			t.Fatalf("summary %+v", s)
		}
	}
}

// The budget counts a page's text as the API's answer carries it: each
// ticket's subject, its description, and every comment, the description
// again among them. Tickets of long descriptions and no other comment fill
// a page by their descriptions alone.
func TestTicketPageBudgetCountsTheDescriptionTwice(t *testing.T) {
	f := newTicketFixture(t)
	description := strings.Repeat("d", models.MaxTicketText)
	for range 24 {
		if _, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "long",
			Description: description, Type: models.TicketServiceRequest}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, d := range page.Tickets {
		size += len(d.Subject) + len(d.Description)
		for _, c := range d.Comments {
			size += len(c.Body)
		}
	}
	if len(page.Tickets) < 2 || size > models.TicketListPageBudget || page.NextPageToken == nil {
		t.Fatalf("a page of %d tickets carries %d bytes of text (budget %d), next page %v",
			len(page.Tickets), size, models.TicketListPageBudget, page.NextPageToken)
	}
}
