package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// Support answers from one composer: a reply with "Send and solve" posts
// the reply and solves in one send; a note with a refused move saves
// nothing and comes back with what was typed; the first reply opens a new
// ticket.
func TestSupportComposer(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "GPU missing")
	page := "/tickets/" + tk.ID
	s := e.signedIn("help@example.com")
	s.get(page).expect(http.StatusOK).contains(`action="`+page+`/reply"`, `name="kind" value="reply"`, `name="kind" value="note"`,
		"Only support sees this", ">Send<", "Send and set pending", "Send and solve").lacks(`name="comment"`, `name="note"`)

	s.post(page+"/reply", url.Values{"kind": {"reply"}, "body": {"Looking into it."}, "status": {""}}).redirectsTo(page)
	if got := e.ticketStatus(tk.ID); got != models.TicketOpen {
		t.Fatalf("after the first reply: %s, want open", got)
	}
	s.post(page+"/reply", url.Values{"kind": {"reply"}, "body": {"Replaced the card."}, "status": {"solved"}}).redirectsTo(page)
	s.get(page).contains("Reply sent. Ticket moved to Solved.", "Replaced the card.")
	if got := e.ticketStatus(tk.ID); got != models.TicketSolved {
		t.Fatalf("after send and solve: %s", got)
	}
	s.post(page+"/reply", url.Values{"kind": {"note"}, "body": {"Customer phoned."}, "status": {"pending"}}).
		expect(http.StatusUnprocessableEntity).contains("A ticket cannot move from solved to pending.", "Customer phoned.",
		`value="note" id="composer-note" checked`)
	s.get(page).lacks("Customer phoned.")
	// The older note address answers a refusal in the composer too.
	s.post(page+"/notes", url.Values{"note": {""}}).expect(http.StatusUnprocessableEntity).
		contains(`value="note" id="composer-note" checked`, "is required")

	b := e.signedIn("ada@example.com")
	b.get(page).contains(`<span class="comment-author">Support agent</span>`, "Replaced the card.").lacks("Customer phoned.")
	b.post(page+"/reply", url.Values{"kind": {"reply"}, "body": {"x"}}).expect(http.StatusForbidden)
}

// The owner of a solved ticket can reopen it; an open one offers no
// reopen.
func TestOwnerReopensSolvedTicket(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "GPU missing")
	page := "/tickets/" + tk.ID
	b := e.signedIn("ada@example.com")
	b.get(page).lacks("Still broken?", page+"/reopen")
	b.post(page+"/reopen", nil).expect(http.StatusUnprocessableEntity).contains("Only a solved ticket can be reopened.")
	e.move(help, tk.ID, models.TicketSolved)
	b.get(page).contains("Still broken?", `action="`+page+`/reopen"`)
	b.post(page+"/reopen", nil).redirectsTo(page)
	b.get(page).contains("Ticket reopened.").lacks("Still broken?")
	if got := e.ticketStatus(tk.ID); got != models.TicketOpen {
		t.Fatalf("after reopening: %s", got)
	}
}

// The queue: unresolved by default, most severe then longest waiting,
// a Waiting column, sortable headers with aria-sort and saved views.
func TestSupportQueueTriage(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	billing := e.ticket(ada, "billing question")
	e.clock.Advance(time.Hour)
	sev := "sev_3"
	if _, err := e.store.UpdateTicket(context.Background(), help.Actor(), billing.ID, models.UpdateTicketInput{Severity: &sev}); err != nil {
		t.Fatal(err)
	}
	urgent := e.ticket(ada, "site offline")
	sev1 := "sev_1"
	if _, err := e.store.UpdateTicket(context.Background(), help.Actor(), urgent.ID, models.UpdateTicketInput{Severity: &sev1}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Hour)
	done := e.ticket(ada, "done already")
	e.move(help, done.ID, models.TicketSolved)

	s := e.signedIn("help@example.com")
	res := s.get("/tickets").expect(http.StatusOK).contains("site offline", "billing question", ">2 h<", ">3 h<",
		`aria-sort="ascending"`, `href="/tickets?sort=waiting"`, `href="/tickets?assignee=unassigned&amp;severity=sev_1"`,
		`aria-current="page">All unresolved`).lacks("done already")
	if strings.Index(res.Body, "site offline") > strings.Index(res.Body, "billing question") {
		t.Fatal("the sev 1 ticket is not first")
	}
	s.get("/tickets?assignee=unassigned&severity=sev_1").contains("site offline", `aria-current="page">Unassigned sev 1`).
		lacks("billing question")
	s.get("/tickets?status=resolved&sort=updated").contains("done already", `aria-current="page">Solved/closed`,
		`aria-sort="descending"`).lacks("site offline")
}
