package models_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
)

// agent adds an active support user and returns its actor.
func (f *ticketFixture) agent(email string) models.Actor {
	f.t.Helper()
	u, err := f.store.CreateUser(f.ctx, models.OperatorActor,
		models.CreateUserInput{Email: email, Password: "support password", Role: models.RoleSupport})
	if err != nil {
		f.t.Fatal(err)
	}
	return u.Actor()
}

func (f *ticketFixture) assign(actor models.Actor, id string, in models.AssignTicketInput) *models.Ticket {
	f.t.Helper()
	t, err := f.store.AssignTicket(f.ctx, actor, id, in)
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

func TestAssignTicket(t *testing.T) {
	f := newTicketFixture(t)
	other := f.agent("second@example.com")
	tk := f.incident(f.owner, "disk full")

	if _, err := f.store.AssignTicket(f.ctx, f.owner, tk.ID, models.AssignTicketInput{Assignee: f.owner.UserID}); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner assigning: %v, want forbidden", err)
	}
	_, err := f.store.AssignTicket(f.ctx, f.support, tk.ID, models.AssignTicketInput{Assignee: f.owner.UserID})
	expectCode(t, err, models.CodeInvalidParameters, "assignee")
	_, err = f.store.AssignTicket(f.ctx, f.support, tk.ID, models.AssignTicketInput{Assignee: "not an id"})
	expectCode(t, err, models.CodeInvalidParameters, "assignee")

	got := f.assign(f.support, tk.ID, models.AssignTicketInput{Assignee: f.support.UserID, From: ptr("")})
	if got.AssigneeUserID == nil || *got.AssigneeUserID != f.support.UserID {
		t.Fatalf("assignee %v, want %s", got.AssigneeUserID, f.support.UserID)
	}
	// The same assignee again changes nothing; a stale From is refused.
	f.assign(f.support, tk.ID, models.AssignTicketInput{Assignee: f.support.UserID})
	_, err = f.store.AssignTicket(f.ctx, other, tk.ID, models.AssignTicketInput{Assignee: other.UserID, From: ptr("")})
	expectCode(t, err, models.CodeConflict, "")
	f.assign(other, tk.ID, models.AssignTicketInput{Assignee: other.UserID, From: &f.support.UserID})
	f.assign(other, tk.ID, models.AssignTicketInput{Assignee: ""})

	acts, err := f.store.TicketActivities(f.ctx, f.support, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" -> help@example.com by help@example.com", "help@example.com -> second@example.com by second@example.com",
		"second@example.com ->  by second@example.com"}
	if len(acts) != len(want) {
		t.Fatalf("%d activities, want %d: %+v", len(acts), len(want), acts)
	}
	for i, a := range acts {
		if s := deref(a.FromValue) + " -> " + deref(a.ToValue) + " by " + a.Actor; s != want[i] || a.Kind != models.ActivityAssignment || !a.ByStaff {
			t.Errorf("activity %d: %q (%s), want %q", i, s, a.Kind, want[i])
		}
	}
	if n := f.count(&models.AuditEvent{}, "account_id = ? AND resource_name = ? AND action = ?", f.owner.AccountID, "ticket", "assigned"); n != 3 {
		t.Fatalf("%d assignment audit events, want 3", n)
	}
	// The owner sees the changes too (the page names staff "Support").
	if acts, err := f.store.TicketActivities(f.ctx, f.owner, tk.ID); err != nil || len(acts) != 3 {
		t.Fatalf("owner's activities: %d %v", len(acts), err)
	}
	if _, err := f.store.TicketActivities(f.ctx, f.other, tk.ID); models.ErrorCode(err) != models.CodeTicketNotFound {
		t.Fatalf("another owner's activities: %v", err)
	}

	f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketClosed)})
	_, err = f.store.AssignTicket(f.ctx, f.support, tk.ID, models.AssignTicketInput{Assignee: f.support.UserID})
	expectCode(t, err, models.CodeInvalidParameters, "assignee")
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// A status change is a thread entry naming who made it.
func TestStatusChangesJoinTheThread(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "slow")
	f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketOpen)})
	f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketSolved)})
	acts, err := f.store.TicketActivities(f.ctx, f.owner, tk.ID)
	if err != nil || len(acts) != 2 {
		t.Fatalf("activities %+v %v", acts, err)
	}
	if a := acts[0]; a.Kind != models.ActivityStatus || deref(a.FromValue) != "new" || deref(a.ToValue) != "open" || !a.ByStaff || a.Actor != "help@example.com" {
		t.Errorf("first %+v", a)
	}
	if a := acts[1]; deref(a.ToValue) != "solved" || a.ByStaff || a.Actor != "owner@example.com" || a.Seq != 1 {
		t.Errorf("second %+v", a)
	}
}

// An internal note reaches no owner: not their thread, not the API's
// ticket answers, not a webhook payload, not their audit log.
func TestInternalNotesStayInternal(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://example.com/hook")
	tk := f.incident(f.owner, "billing")
	const secret = "customer seems to be reselling capacity"
	f.clock.Advance(time.Minute)

	if _, err := f.store.AddTicketNote(f.ctx, f.owner, tk.ID, "owners cannot"); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner's note: %v, want forbidden", err)
	}
	_, err := f.store.AddTicketNote(f.ctx, f.support, tk.ID, "  ")
	expectCode(t, err, models.CodeInvalidParameters, "note")
	note, err := f.store.AddTicketNote(f.ctx, f.support, tk.ID, secret)
	if err != nil {
		t.Fatal(err)
	}
	f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(models.TicketPending),
		Comment: &models.TicketCommentInput{Body: "Looking into it."}})

	staff, _ := f.store.TicketActivities(f.ctx, f.support, tk.ID)
	if len(staff) != 2 || staff[0].ID != note.ID || deref(staff[0].Body) != secret {
		t.Fatalf("staff thread %+v", staff)
	}
	owners, _ := f.store.TicketActivities(f.ctx, f.owner, tk.ID)
	for _, a := range owners {
		if a.Kind == models.ActivityNote || strings.Contains(deref(a.Body), secret) {
			t.Fatalf("owner's thread holds the note: %+v", a)
		}
	}
	d, err := f.store.Ticket(f.ctx, f.owner, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(d.Comments, page.Tickets[0].Comments...) {
		if strings.Contains(c.Body, secret) {
			t.Fatalf("a comment holds the note: %+v", c)
		}
	}
	var payloads []string
	f.store.DB().Model(&models.WebhookEvent{}).Where("ticket_id = ?", tk.ID).Pluck("payload", &payloads)
	if len(payloads) != 2 {
		t.Fatalf("%d webhook events, want created and status_changed", len(payloads))
	}
	for _, p := range payloads {
		if strings.Contains(p, secret) {
			t.Fatalf("webhook payload holds the note: %s", p)
		}
	}
	var details []string
	f.store.DB().Model(&models.AuditEvent{}).Where("account_id = ?", f.owner.AccountID).Pluck("additional_details", &details)
	var actions []string
	f.store.DB().Model(&models.AuditEvent{}).Where("account_id = ?", f.owner.AccountID).Pluck("action", &actions)
	for i := range details {
		if strings.Contains(details[i], secret) || strings.Contains(details[i], note.ID) || actions[i] == "note_added" {
			t.Fatalf("the owner's audit log mentions the note: %s %s", actions[i], details[i])
		}
	}
	if n := f.count(&models.AuditEvent{}, "account_id = '' AND action = ?", "note_added"); n != 1 {
		t.Fatalf("%d note audit events, want 1", n)
	}
	// A note alone does not change the ticket the owner sees.
	f2 := f.incident(f.owner, "quiet")
	f.clock.Advance(time.Minute)
	f.store.AddTicketNote(f.ctx, f.support, f2.ID, "checked, nothing to do")
	if d, _ := f.store.Ticket(f.ctx, f.owner, f2.ID); !d.UpdatedAt.Equal(f2.UpdatedAt) {
		t.Fatalf("a note moved updated_at from %v to %v", f2.UpdatedAt, d.UpdatedAt)
	}
}

// Many agents taking the same ticket at once: exactly one gets it, the
// others are told who has it, and the thread has one entry. Then many
// reassignments at once leave a thread whose every entry starts where the
// previous one ended, finishing at the ticket's assignee.
func TestConcurrentAssignment(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "contended")
	agents := []models.Actor{f.support}
	for _, e := range []string{"a1@example.com", "a2@example.com", "a3@example.com", "a4@example.com", "a5@example.com", "a6@example.com", "a7@example.com"} {
		agents = append(agents, f.agent(e))
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := agents[i%len(agents)]
			_, errs[i] = f.store.AssignTicket(f.ctx, a, tk.ID, models.AssignTicketInput{Assignee: a.UserID, From: ptr("")})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case models.ErrorCode(err) == models.CodeConflict:
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	acts, _ := f.store.TicketActivities(f.ctx, f.support, tk.ID)
	if won != 1 || len(acts) != 1 {
		t.Fatalf("%d winners, %d thread entries; want one assignment", won, len(acts))
	}

	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := agents[(i*3)%len(agents)]
			_, errs[i] = f.store.AssignTicket(f.ctx, f.support, tk.ID, models.AssignTicketInput{Assignee: a.UserID})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	acts, _ = f.store.TicketActivities(f.ctx, f.support, tk.ID)
	for i := 1; i < len(acts); i++ {
		if acts[i].Seq != i || deref(acts[i].FromValue) != deref(acts[i-1].ToValue) || deref(acts[i].FromValue) == deref(acts[i].ToValue) {
			t.Fatalf("entry %d (seq %d) goes %s -> %s after one that ended at %s", i, acts[i].Seq,
				deref(acts[i].FromValue), deref(acts[i].ToValue), deref(acts[i-1].ToValue))
		}
	}
	page, _ := f.store.Tickets(f.ctx, f.support, models.TicketFilter{})
	if got, last := page.Tickets[0].AssigneeEmail, deref(acts[len(acts)-1].ToValue); got != last {
		t.Fatalf("ticket assigned to %s, thread ends at %s", got, last)
	}
	if n := f.count(&models.AuditEvent{}, "action = ?", "assigned"); n != int64(len(acts)) {
		t.Fatalf("%d audit events for %d assignments", n, len(acts))
	}
}
