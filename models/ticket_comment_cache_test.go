package models_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// commentBodies is each listed ticket's comment bodies, by subject.
func commentBodies(page *models.TicketDetailPage) map[string][]string {
	out := map[string][]string{}
	for _, t := range page.Tickets {
		bodies := []string{}
		for i, c := range t.Comments {
			if c.Seq != i {
				return map[string][]string{"seq": {fmt.Sprintf("ticket %q: comment %d has seq %d", t.Subject, i, c.Seq)}}
			}
			bodies = append(bodies, c.Body)
		}
		out[t.Subject] = bodies
	}
	return out
}

// A ticket list reads the comments only of tickets that have comments it
// has not read before: listed again unchanged, it sends one statement (the
// tickets) instead of two; after a comment it reads the comments again
// and shows the new one after the others.
func TestTicketListReadsCommentsOnce(t *testing.T) {
	f := newTicketFixture(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, f.incident(f.owner, fmt.Sprintf("ticket %d", i)).ID)
		f.clock.Advance(1e9)
	}
	comment := func(id, body string) {
		t.Helper()
		if _, err := f.store.UpdateTicket(f.ctx, f.owner, id, models.UpdateTicketInput{
			Comment: &models.TicketCommentInput{Body: body}}); err != nil {
			t.Fatal(err)
		}
	}
	comment(ids[1], "first")
	list := func() map[string][]string {
		t.Helper()
		page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return commentBodies(page)
	}
	want := map[string][]string{"ticket 0": {"It broke."}, "ticket 1": {"It broke.", "first"}, "ticket 2": {"It broke."}}
	if got := list(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("first list: %v, want %v", got, want)
	}
	n := countStatements(t, f.store)
	if got := list(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("second list: %v, want %v", got, want)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("listed again unchanged: %d statements, want 1 (the tickets, no comments)", got)
	}
	comment(ids[1], "second")
	comment(ids[2], "third")
	want["ticket 1"] = append(want["ticket 1"], "second")
	want["ticket 2"] = append(want["ticket 2"], "third")
	if got := list(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after two comments: %v, want %v", got, want)
	}
	// The single ticket's read shares the cache.
	d, err := f.store.Ticket(f.ctx, f.owner, ids[1])
	if err != nil || len(d.Comments) != 3 || d.Comments[2].Body != "second" {
		t.Fatalf("ticket: %+v, %v", d, err)
	}
}

// Comments added through another replica (another process on the same
// database) are listed by this one's next read: what a ticket's row counts
// decides, not what this process saw written.
func TestTicketListSeesOtherReplicasComments(t *testing.T) {
	_, here, there := twoReplicas(t)
	ctx := context.Background()
	u, _ := modelstest.Owner(t, here, "owner@example.com")
	owner := u.Actor()
	tk, err := here.CreateTicket(ctx, owner, models.CreateTicketInput{Subject: "replicated", Description: "It broke.",
		Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		page, err := here.TicketsWithComments(ctx, owner, models.TicketFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(page.Tickets[0].Comments); got != 1+round {
			t.Fatalf("round %d: %d comments listed here, want %d", round, got, 1+round)
		}
		if _, err := there.UpdateTicket(ctx, owner, tk.ID, models.UpdateTicketInput{
			Comment: &models.TicketCommentInput{Body: fmt.Sprintf("from there %d", round)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// Many clients comment and list at once, on tickets they share: every list
// shows each ticket's comments numbered from 0 without a gap, never fewer
// than the client knows were committed before it listed, and at the end
// every comment in the order the database holds them.
func TestTicketListCommentsUnderConcurrentWrites(t *testing.T) {
	f := newTicketFixture(t)
	var ids []string
	for i := range 4 {
		ids = append(ids, f.incident(f.owner, fmt.Sprintf("ticket %d", i)).ID)
		f.clock.Advance(1e9)
	}
	const clients, rounds = 16, 6
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for client := range clients {
		wg.Go(func() {
			subject := fmt.Sprintf("ticket %d", client%len(ids))
			for round := range rounds {
				body := fmt.Sprintf("client %d round %d", client, round)
				if _, err := f.store.UpdateTicket(f.ctx, f.owner, ids[client%len(ids)],
					models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
					errs <- err
					return
				}
				page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
				if err != nil {
					errs <- err
					return
				}
				got := commentBodies(page)
				if seq, ok := got["seq"]; ok {
					errs <- fmt.Errorf("%v", seq)
					return
				}
				if !slices.Contains(got[subject], body) {
					errs <- fmt.Errorf("after commenting %q, %s lists %v", body, subject, got[subject])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range page.Tickets {
		var stored []models.TicketComment
		if err := f.store.DB().Where("ticket_id = ?", tk.ID).Order("seq").Find(&stored).Error; err != nil {
			t.Fatal(err)
		}
		if len(stored) != 1+clients/len(ids)*rounds || len(tk.Comments) != len(stored) {
			t.Fatalf("%s: %d comments listed, %d stored", tk.Subject, len(tk.Comments), len(stored))
		}
		for i := range stored {
			if tk.Comments[i].Body != stored[i].Body || tk.Comments[i].ID != stored[i].ID {
				t.Fatalf("%s: comment %d listed %q, stored %q", tk.Subject, i, tk.Comments[i].Body, stored[i].Body)
			}
		}
	}
}
