package models_test

import (
	"slices"
	"testing"
	"time"

	"cloudplane/models"
)

func (f *ticketFixture) status(id string) string {
	f.t.Helper()
	d, err := f.store.Ticket(f.ctx, f.support, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return d.Status
}

// Support's first reply opens a new ticket; the owner's comments and
// support's internal notes do not, and later replies do not move it.
func TestFirstAgentReplyOpensNewTicket(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "disk full")
	comment := func(actor models.Actor, body string) {
		t.Helper()
		f.clock.Advance(time.Minute)
		if _, err := f.store.UpdateTicket(f.ctx, actor, tk.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
			t.Fatal(err)
		}
	}
	comment(f.owner, "still broken")
	if _, err := f.store.AddTicketNote(f.ctx, f.support, tk.ID, "looking"); err != nil {
		t.Fatal(err)
	}
	if got := f.status(tk.ID); got != models.TicketNew {
		t.Fatalf("after the owner's comment and a note: %s, want new", got)
	}
	comment(f.support, "we are on it")
	if got := f.status(tk.ID); got != models.TicketOpen {
		t.Fatalf("after support's first reply: %s, want open", got)
	}
	if n := f.count(&models.WebhookEvent{}, "ticket_id = ? AND type = ?", tk.ID, models.EventTicketStatusChanged); n != 1 {
		t.Fatalf("%d status_changed events, want 1", n)
	}
	acts, _ := f.store.TicketActivities(f.ctx, f.owner, tk.ID)
	if len(acts) != 1 || deref(acts[0].FromValue) != models.TicketNew || deref(acts[0].ToValue) != models.TicketOpen {
		t.Fatalf("owner's activities %+v, want one move new -> open", acts)
	}
	// A reply on a pending ticket leaves it pending.
	f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketPending)})
	comment(f.support, "any news?")
	if got := f.status(tk.ID); got != models.TicketPending {
		t.Fatalf("reply on a pending ticket: %s, want pending", got)
	}
	// The reply may name another move: new goes straight to pending.
	second := f.incident(f.owner, "slow")
	if _, err := f.store.ReplyToTicket(f.ctx, f.support, second.ID, models.TicketReplyInput{Kind: models.ReplyPublic,
		Body: "please send logs", Status: models.TicketPending}); err != nil {
		t.Fatal(err)
	}
	if got := f.status(second.ID); got != models.TicketPending {
		t.Fatalf("send and set pending on a new ticket: %s", got)
	}
}

// The composer's send is one operation: the message and the move together,
// or, when the move is refused, nothing.
func TestReplyToTicketIsOneOperation(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/a")
	tk := f.incident(f.owner, "disk full")
	f.clock.Advance(time.Minute)

	got, err := f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: models.ReplyPublic,
		Body: "fixed, the disk was replaced", Status: models.TicketSolved})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != models.TicketSolved || got.ResolvedAt == nil || got.WaitingSince != nil {
		t.Fatalf("after send and solve: %+v", got)
	}
	d, _ := f.store.Ticket(f.ctx, f.owner, tk.ID)
	if len(d.Comments) != 2 || d.Comments[1].Body != "fixed, the disk was replaced" || d.Comments[1].Author != "support" {
		t.Fatalf("comments %+v", d.Comments)
	}
	if n := f.count(&models.WebhookEvent{}, "ticket_id = ? AND type = ?", tk.ID, models.EventTicketResolved); n != 1 {
		t.Fatalf("%d ticket.resolved events, want 1", n)
	}
	if n := f.count(&models.AuditEvent{}, "account_id = ? AND resource_name = ? AND action = ?", f.owner.AccountID, "ticket", "updated"); n != 1 {
		t.Fatalf("%d audit events of the change, want 1", n)
	}

	// A solved ticket cannot go to pending: neither the reply nor a note is saved.
	for _, kind := range []string{models.ReplyPublic, models.ReplyNote} {
		_, err = f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: kind, Body: "one more thing", Status: models.TicketPending})
		expectCode(t, err, models.CodeInvalidParameters, "status")
	}
	if d, _ := f.store.Ticket(f.ctx, f.support, tk.ID); len(d.Comments) != 2 || d.Status != models.TicketSolved {
		t.Fatalf("a refused send changed the ticket: %d comments, %s", len(d.Comments), d.Status)
	}
	if n := f.count(&models.TicketActivity{}, "ticket_id = ? AND kind = ?", tk.ID, models.ActivityNote); n != 0 {
		t.Fatalf("a refused send saved %d notes", n)
	}

	// A note with a move: the note stays internal, the move is public.
	f.clock.Advance(time.Minute)
	if _, err := f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: models.ReplyNote,
		Body: "customer asked by phone", Status: ""}); err != nil {
		t.Fatal(err)
	}
	acts, _ := f.store.TicketActivities(f.ctx, f.owner, tk.ID)
	for _, a := range acts {
		if a.Kind == models.ActivityNote {
			t.Fatal("the owner reads an internal note")
		}
	}
	if d, _ := f.store.Ticket(f.ctx, f.support, tk.ID); len(d.Comments) != 2 {
		t.Fatalf("a note became a comment: %d comments", len(d.Comments))
	}

	_, err = f.store.ReplyToTicket(f.ctx, f.owner, tk.ID, models.TicketReplyInput{Kind: models.ReplyPublic, Body: "x"})
	expectCode(t, err, models.CodeForbidden, "")
	_, err = f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: models.ReplyPublic, Body: " "})
	expectCode(t, err, models.CodeInvalidParameters, "body")
	_, err = f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: "shout", Body: "x"})
	expectCode(t, err, models.CodeInvalidParameters, "kind")
}

// An owner may reopen a solved ticket, and nothing else but solve.
func TestOwnerReopensSolvedTicket(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "disk full")
	_, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketOpen)})
	expectCode(t, err, models.CodeInvalidParameters, "status")
	f.store.ReplyToTicket(f.ctx, f.support, tk.ID, models.TicketReplyInput{Kind: models.ReplyPublic, Body: "done", Status: models.TicketSolved})
	f.clock.Advance(time.Hour)
	got, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketOpen)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != models.TicketOpen || got.ResolvedAt != nil || got.WaitingSince == nil || !got.WaitingSince.Equal(f.clock.Now()) {
		t.Fatalf("reopened: %+v", got)
	}
	_, err = f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketPending)})
	expectCode(t, err, models.CodeInvalidParameters, "status")
}

// The queue's triage order: most severe first, then the longest waiting
// for support; a ticket support answered last follows those that wait.
func TestTicketQueueTriageOrder(t *testing.T) {
	f := newTicketFixture(t)
	open := func(subject string, sev *string) *models.Ticket {
		in := models.CreateTicketInput{Subject: subject, Description: "d", Type: models.TicketServiceRequest}
		if sev != nil {
			in.Type, in.Severity = models.TicketIncident, sev
		}
		tk, err := f.store.CreateTicket(f.ctx, f.owner, in)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Hour)
		return tk
	}
	reply := func(actor models.Actor, tk *models.Ticket) {
		if _, err := f.store.UpdateTicket(f.ctx, actor, tk.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "x"}}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Hour)
	}
	open("billing question", nil)
	answered := open("answered sev1", ptr("sev_1"))
	open("sev2", ptr("sev_2"))
	back := open("customer came back sev1", ptr("sev_1"))
	fresh := open("fresh sev1", ptr("sev_1"))
	reply(f.support, answered)
	reply(f.support, back)
	reply(f.owner, back) // waits again, since now: after fresh
	solved := open("solved sev1", ptr("sev_1"))
	f.store.UpdateTicket(f.ctx, f.support, solved.ID, models.UpdateTicketInput{Status: ptr(models.TicketSolved)})

	want := []string{"fresh sev1", "customer came back sev1", "answered sev1", "sev2", "billing question"}
	got := f.listAll(f.support, models.TicketFilter{Statuses: models.UnresolvedTicketStatuses(), OrderBy: "triage", Direction: "asc"})
	if !slices.Equal(got, want) {
		t.Errorf("triage order %q, want %q", got, want)
	}
	page, _ := f.store.Tickets(f.ctx, f.support, models.TicketFilter{OrderBy: "triage", Direction: "asc", Limit: 1})
	if w := page.Tickets[0].WaitingSince; w == nil || !w.Equal(fresh.CreatedAt) {
		t.Errorf("fresh ticket waits since %v, want its creation %v", w, fresh.CreatedAt)
	}
	got = f.listAll(f.support, models.TicketFilter{Statuses: models.UnresolvedTicketStatuses(), OrderBy: "waiting", Direction: "asc"})
	if want := []string{"billing question", "sev2", "fresh sev1", "customer came back sev1", "answered sev1"}; !slices.Equal(got, want) {
		t.Errorf("waiting order %q, want %q", got, want)
	}
	_, err := f.store.Tickets(f.ctx, f.owner, models.TicketFilter{OrderBy: "triage"})
	expectCode(t, err, models.CodeInvalidParameters, "order_by")
}
