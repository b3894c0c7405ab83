package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// ticket opens a sev_2 incident as u, as the API would.
func (e *env) ticket(u *models.User, subject string) *models.Ticket {
	e.t.Helper()
	sev := "sev_2"
	t, err := e.store.CreateTicket(context.Background(), u.Actor(), models.CreateTicketInput{
		Subject: subject, Description: "It broke at noon.", Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

// move changes a ticket's status as support staff would.
func (e *env) move(support *models.User, id, to string) {
	e.t.Helper()
	if _, err := e.store.UpdateTicket(context.Background(), support.Actor(), id, models.UpdateTicketInput{Status: &to}); err != nil {
		e.t.Fatal(err)
	}
}

// ticketStatus reads a ticket's status straight from the store.
func (e *env) ticketStatus(id string) string {
	e.t.Helper()
	t, err := e.store.Ticket(context.Background(), models.OperatorActor, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return t.Status
}

func TestTicketsEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/").contains(`href="/tickets"`, `href="/webhook"`).lacks(`href="/webhook-deliveries">Deliveries`)
	b.get("/tickets").expect(http.StatusOK).
		contains("<h1>Support tickets</h1>", "No tickets yet", `href="/tickets/new"`,
			`<a href="/tickets" aria-current="page">Tickets</a>`)
}

// An owner opens a ticket in the dashboard, lands on it, finds it in the
// list, and the change is recorded as theirs.
func TestOpenTicket(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/tickets/new").expect(http.StatusOK).
		contains("<h1>Open a ticket</h1>", `name="subject"`, `name="description"`, `value="incident"`,
			`value="service_request"`, `name="severity"`, `data-shown-for="type=incident"`)
	e.clock.Advance(time.Second)
	res := b.post("/tickets", url.Values{"subject": {"GPU missing"}, "type": {"incident"}, "severity": {"sev_1"},
		"description": {"nvidia-smi lists\nno devices"}}).expect(http.StatusSeeOther)
	loc := res.Header.Get("Location")
	id := strings.TrimPrefix(loc, "/tickets/")
	if !models.IsID(id) {
		t.Fatalf("redirect to %q", loc)
	}
	b.get(loc).expect(http.StatusOK).
		contains("Ticket opened.", `<h1 class="ticket-subject">GPU missing</h1>`, ">New</span>", ">Sev 1</span>",
			"nvidia-smi lists\nno devices", `<span class="comment-author">You</span>`, "opened the ticket",
			"Mark as solved", "The dashboard", `href="/webhook-deliveries?ticket=`+id+`"`).
		lacks("Move ticket")
	b.get("/tickets").expect(http.StatusOK).
		contains(`href="/tickets/`+id+`"`, "GPU missing", `class="badge badge-info">New</span>`, "Incident", "no comments")

	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "ticket" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Support ticket “GPU missing” opened")
}

func TestOpenTicketShowsErrorsBesideTheFields(t *testing.T) {
	cases := []struct {
		name         string
		form         url.Values
		field, error string
	}{
		{"no subject", url.Values{"type": {"service_request"}, "description": {"d"}},
			"subject", "Subject is required."},
		{"no type", url.Values{"subject": {"s"}, "description": {"d"}},
			"type", "Type is required: choose Incident or Service request."},
		{"incident without severity", url.Values{"subject": {"s"}, "type": {"incident"}, "description": {"d"}},
			"severity", "Severity is required for incidents: choose Sev 1 (production down), Sev 2 (degraded service) or Sev 3 (minor problem or question)."},
		{"service request with severity", url.Values{"subject": {"s"}, "type": {"service_request"}, "severity": {"sev_3"}, "description": {"d"}},
			"severity", "Severity must not be given for service requests."},
		{"blank description", url.Values{"subject": {"s"}, "type": {"service_request"}, "description": {"  "}},
			"description", "Description is required."},
	}
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b.htmx = false
			res := b.post("/tickets", c.form).expect(http.StatusUnprocessableEntity).fieldError(c.field, c.error).
				contains("<!doctype html>", "<h1>Open a ticket</h1>")
			if s := c.form.Get("subject"); s != "" && !strings.Contains(res.Body, `value="`+s+`"`) {
				t.Fatal("the subject typed is lost")
			}
			b.htmx = true
			b.post("/tickets", c.form).expect(http.StatusUnprocessableEntity).fieldError(c.field, c.error).lacks("<!doctype html>")
		})
	}
	b.htmx = false
	b.get("/tickets").contains("No tickets yet")
}

func TestCommentOnTicket(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Slow disk")
	b := e.signedIn("ada@example.com")
	page := "/tickets/" + tk.ID
	b.post(page+"/comments", url.Values{"comment": {"  "}}).expect(http.StatusUnprocessableEntity).
		fieldError("comment", "Comment is required.").contains("Slow disk")
	e.clock.Advance(time.Minute)
	b.post(page+"/comments", url.Values{"comment": {"Still slow <b>today</b>"}}).expect(http.StatusSeeOther).redirectsTo(page)
	b.get(page).expect(http.StatusOK).
		contains("Comment added.", "Still slow &lt;b&gt;today&lt;/b&gt;", `id="comment-1"`, `datetime="2026-01-02T03:05:05Z"`)
	b.get("/tickets").contains("1 comment")
}

func TestOwnerSolvesTicket(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Quota")
	b := e.signedIn("ada@example.com")
	page := "/tickets/" + tk.ID
	b.post(page+"/solve", nil).expect(http.StatusSeeOther).redirectsTo(page)
	b.get(page).expect(http.StatusOK).contains("Ticket marked as solved.", ">Solved</span>", "<dt>Solved</dt>").
		lacks("Mark as solved")
	if got := e.ticketStatus(tk.ID); got != models.TicketSolved {
		t.Fatalf("status %s", got)
	}
	// Solved tickets still take comments; closed ones do not.
	b.get(page).contains(`action="/tickets/` + tk.ID + `/comments"`)
	help := e.user("help@example.com", models.RoleSupport)
	e.move(help, tk.ID, models.TicketClosed)
	b.get(page).contains("This ticket is closed").lacks(`action="/tickets/` + tk.ID + `/comments"`)
	b.post(page+"/comments", url.Values{"comment": {"hello?"}}).expect(http.StatusUnprocessableEntity).
		contains("The ticket is closed and cannot change; open a new ticket.")
}

// Moving between open statuses is support's: an owner who posts such a
// move anyway is refused on the page and the ticket stays as it was.
func TestOwnersOnlySolve(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Mine")
	b := e.signedIn("ada@example.com")
	page := "/tickets/" + tk.ID
	b.get(page).lacks(`name="status"`, "Move ticket")
	b.post(page+"/status", url.Values{"status": {"pending"}}).expect(http.StatusUnprocessableEntity).
		contains("The ticket did not change", "Status must be solved, or open to reopen a solved ticket; support staff move tickets between the other statuses.")
	if got := e.ticketStatus(tk.ID); got != models.TicketNew {
		t.Fatalf("status %s after a refused move", got)
	}
}

// An owner reaches only their account's tickets: another account's are not
// found, whatever the action, and stay unchanged.
func TestTicketsOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	tk := e.ticket(ada, "ada's secret")
	bob := e.signedIn("bob@example.com")
	page := "/tickets/" + tk.ID
	bob.get("/tickets").expect(http.StatusOK).lacks("ada's secret")
	bob.get("/tickets?account="+*ada.AccountID).expect(http.StatusOK).lacks("ada's secret", "Clear")
	bob.get(page).expect(http.StatusNotFound).lacks("ada's secret")
	bob.post(page+"/comments", url.Values{"comment": {"mine now"}}).expect(http.StatusNotFound)
	bob.post(page+"/solve", nil).expect(http.StatusNotFound)
	bob.post(page+"/status", url.Values{"status": {"solved"}}).expect(http.StatusNotFound)
	bob.get("/tickets/not-an-id").expect(http.StatusNotFound)
	d, err := e.store.Ticket(context.Background(), ada.Actor(), tk.ID)
	if err != nil || d.Status != models.TicketNew || len(d.Comments) != 1 {
		t.Fatalf("ada's ticket after bob: %+v, %v", d, err)
	}
}

func TestTicketFormsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Mine")
	b := e.signedIn("ada@example.com")
	none := url.Values{"csrf_token": {""}}
	for _, path := range []string{"/tickets", "/tickets/" + tk.ID + "/comments", "/tickets/" + tk.ID + "/solve", "/tickets/" + tk.ID + "/status"} {
		form := url.Values{"subject": {"x"}, "type": {"service_request"}, "description": {"x"}, "comment": {"x"}, "status": {"solved"}}
		for k, v := range none {
			form[k] = v
		}
		b.post(path, form).expect(http.StatusForbidden).contains("did not come from this site")
	}
	d, _ := e.store.Ticket(context.Background(), ada.Actor(), tk.ID)
	if d.Status != models.TicketNew || len(d.Comments) != 1 {
		t.Fatalf("changed without a token: %+v", d)
	}
	if page, _ := e.store.Tickets(context.Background(), ada.Actor(), models.TicketFilter{}); len(page.Tickets) != 1 {
		t.Fatalf("%d tickets", len(page.Tickets))
	}
}

// Support staff see every account's tickets and filter them by status,
// severity and account, by id or by the owner's email.
func TestSupportQueue(t *testing.T) {
	e := newEnv(t)
	ada, bob := e.owner("ada@example.com"), e.owner("bob@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	a1 := e.ticket(ada, "ada first")
	e.clock.Advance(time.Second)
	b1 := e.ticket(bob, "bob first")
	sev := "sev_3"
	if _, err := e.store.UpdateTicket(context.Background(), help.Actor(), b1.ID, models.UpdateTicketInput{Severity: &sev}); err != nil {
		t.Fatal(err)
	}
	e.move(help, a1.ID, models.TicketSolved)
	s := e.signedIn("help@example.com")
	s.get("/").contains(`href="/tickets"`, `href="/webhook-deliveries"`).lacks(`href="/webhook"`, `href="/api-keys"`)
	cases := []struct {
		query        string
		status       int
		want, lacks  []string
		field, error string
	}{
		{"", 200, []string{"bob first", "bob@example.com", `name="account"`, `name="severity"`}, []string{"ada first"}, "", ""},
		{"?status=any", 200, []string{"ada first", "bob first", "ada@example.com", "bob@example.com"}, nil, "", ""},
		{"?status=resolved", 200, []string{"ada first"}, []string{"bob first"}, "", ""},
		{"?status=unresolved", 200, []string{"bob first"}, []string{"ada first"}, "", ""},
		{"?status=solved", 200, []string{"ada first"}, []string{"bob first"}, "", ""},
		{"?severity=sev_3", 200, []string{"bob first"}, []string{"ada first"}, "", ""},
		{"?account=ADA@example.com&status=any", 200, []string{"ada first"}, []string{"bob first"}, "", ""},
		{"?account=" + *bob.AccountID, 200, []string{"bob first"}, []string{"ada first"}, "", ""},
		{"?status=pending", 200, []string{"No tickets match these filters"}, []string{"ada first", "bob first"}, "", ""},
		{"?account=nobody@example.com", 422, []string{"No tickets shown"}, []string{"ada first"},
			"account", "Account (email or ID) does not match any account; give an account ID or the email of its owner."},
		{"?status=lost", 422, nil, []string{"ada first"}, "status", "Status must be new, open, pending, on_hold, solved or closed, not \"lost\"."},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			res := s.get("/tickets" + c.query).expect(c.status).contains("<h1>Ticket queue</h1>").contains(c.want...).lacks(c.lacks...)
			if c.field != "" {
				res.fieldError(c.field, strings.ReplaceAll(c.error, `"`, "&#34;"))
			}
		})
	}
}

// Support staff are offered exactly the moves the status machine allows,
// and a move it does not allow, posted anyway, changes nothing.
func TestSupportMovesTicket(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "Broken")
	s := e.signedIn("help@example.com")
	page := "/tickets/" + tk.ID
	// Moves are buttons, except closing, which links to its confirmation.
	moves := regexp.MustCompile(`name="status" value="([a-z_]+)"|href="/tickets/[0-9a-f]+/(close)"`)
	offered := func(body string) []string {
		var out []string
		body = body[strings.Index(body, `id="move-heading"`):] // the move card, not the composer's buttons
		for _, m := range moves.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1]+m[2])
		}
		return out
	}
	res := s.get(page).expect(http.StatusOK).contains("Move ticket", "From New to:", "<dt>Requester</dt>", "ada@example.com").
		lacks("Mark as solved")
	if got := strings.Join(offered(res.Body), ","); got != "open,pending,on_hold,solved,close" {
		t.Fatalf("moves offered from new: %s", got)
	}
	s.post(page+"/status", url.Values{"status": {"pending"}}).expect(http.StatusSeeOther).redirectsTo(page)
	res = s.get(page).contains("Ticket moved to Pending.", "From Pending to:")
	if got := strings.Join(offered(res.Body), ","); got != "open,on_hold,solved,close" {
		t.Fatalf("moves offered from pending: %s", got)
	}

	res = s.post(page+"/status", url.Values{"status": {"new"}}).expect(http.StatusUnprocessableEntity).
		contains("The ticket did not move", "A ticket cannot move from pending to new.", "From Pending to:")
	if got := res.Header.Get("HX-Replace-Url"); got != page {
		t.Fatalf("address after a refused move %q, want the ticket's", got)
	}
	if got := e.ticketStatus(tk.ID); got != models.TicketPending {
		t.Fatalf("status %s after a refused move", got)
	}
	s.post(page+"/comments", url.Values{"comment": {"Looking into it."}}).expect(http.StatusSeeOther)
	// Closing from an open status asks first; only the confirmation closes.
	s.post(page+"/status", url.Values{"status": {"closed"}}).redirectsTo(page + "/close")
	if got := e.ticketStatus(tk.ID); got != models.TicketPending {
		t.Fatalf("status %s before the close was confirmed", got)
	}
	s.get(page+"/close").expect(http.StatusOK).contains("Close “Broken”?", "A closed ticket cannot change", `action="`+page+`/close"`)
	s.post(page+"/close", nil).redirectsTo(page)
	res = s.get(page).contains("Ticket moved to Closed.", "Closed tickets cannot change.")
	if len(offered(res.Body)) != 0 {
		t.Fatal("moves offered on a closed ticket")
	}
	s.post(page+"/status", url.Values{"status": {"open"}}).expect(http.StatusUnprocessableEntity).
		contains("The ticket is closed and cannot change; open a new ticket.")

	// The owner reads support's comment as support's, never by name.
	b := e.signedIn("ada@example.com")
	b.get(page).contains(`<span class="comment-author">Support agent</span>`, "Looking into it.").
		lacks("help@example.com", `<span class="comment-author">Support</span>`)
}

func (e *env) supportUser(email string) *models.User {
	e.t.Helper()
	u, err := e.store.UserByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// Support staff open no tickets: they have no account.
func TestSupportStaffOpenNoTickets(t *testing.T) {
	e := newEnv(t)
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/tickets").lacks(`href="/tickets/new"`)
	s.get("/tickets/new").expect(http.StatusForbidden)
	s.post("/tickets", url.Values{"subject": {"x"}, "type": {"service_request"}, "description": {"x"}}).expect(http.StatusForbidden)
}

// The support home page is the head of the queue: the unresolved tickets
// in triage order (here, equally severe: the longest waiting), with a way
// to all of them.
func TestSupportHomeShowsTheQueue(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/").expect(http.StatusOK).contains("Nothing needs attention", `href="/tickets"`)
	for i := range 11 {
		e.clock.Advance(time.Second)
		e.ticket(ada, "ticket "+strconv.Itoa(i))
	}
	res := s.get("/").expect(http.StatusOK).contains("Tickets needing attention", "ticket 0<", "ticket 9<", "Waiting",
		`href="/tickets?status=unresolved"`).lacks("ticket 10")
	if n := strings.Count(res.Body, `<td class="cell-strong">`); n != 10 {
		t.Fatalf("%d tickets on the home page", n)
	}
}

// htmx gets the list as a fragment, the same content as the page's.
func TestTicketsFragment(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.ticket(ada, "One")
	b := e.signedIn("ada@example.com")
	full := b.get("/tickets").expect(http.StatusOK)
	b.htmx = true
	frag := b.get("/tickets").expect(http.StatusOK).contains("<title>Support tickets · cloudplane</title>", "One").
		lacks("<!doctype html>", "<main")
	main := full.Body[strings.Index(full.Body, `<div id="flash"`):strings.Index(full.Body, "</main>")]
	if !strings.Contains(frag.Body, main) {
		t.Fatal("the fragment differs from the page's main content")
	}
}
