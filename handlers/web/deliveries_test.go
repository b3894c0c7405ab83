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

// deliveryIDs are the deliveries of the log as the actor sees it, newest
// first.
func (e *env) deliveryIDs(actor models.Actor, f models.DeliveryFilter) []string {
	e.t.Helper()
	page, err := e.store.WebhookDeliveries(context.Background(), actor, f)
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, d := range page.Deliveries {
		ids = append(ids, d.ID)
	}
	return ids
}

func (e *env) deliveryStatus(id string) string {
	e.t.Helper()
	d, err := e.store.WebhookDelivery(context.Background(), models.OperatorActor, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return d.Status
}

// deliveryLog is two accounts with webhooks: ada's ticket delivered, then
// resolved and failing; bob's ticket failed for good.
type deliveryLog struct {
	*env
	ada, bob, help            *models.User
	adaTicket, bobTicket      *models.Ticket
	created, resolved, failed string // delivery ids
}

func newDeliveryLog(t *testing.T) *deliveryLog {
	e := newEnv(t)
	l := &deliveryLog{env: e, ada: e.owner("ada@example.com"), bob: e.owner("bob@example.com"),
		help: e.user("help@example.com", models.RoleSupport)}
	e.webhook(l.ada, "https://hooks.ada.example.com/in")
	e.webhook(l.bob, "https://hooks.bob.example.com/in")
	l.adaTicket = e.ticket(l.ada, "ada's")
	l.created = e.deliveryIDs(l.ada.Actor(), models.DeliveryFilter{})[0]
	e.answer(200, false)
	e.clock.Advance(time.Minute)
	l.bobTicket = e.ticket(l.bob, "bob's")
	l.failed = e.deliveryIDs(l.bob.Actor(), models.DeliveryFilter{})[0]
	e.answer(500, false)
	e.clock.Advance(time.Minute)
	e.move(l.help, l.adaTicket.ID, models.TicketSolved)
	l.resolved = e.deliveryIDs(l.ada.Actor(), models.DeliveryFilter{})[0]
	e.answer(503, true)
	return l
}

// Owners see their own deliveries, support staff everyone's; both filter
// by status, event and ticket, and staff by account.
func TestDeliveryLogScopesAndFilters(t *testing.T) {
	l := newDeliveryLog(t)
	ada := l.signedIn("ada@example.com")
	ada.get("/webhook-deliveries").expect(http.StatusOK).
		contains("<h1>Webhook deliveries</h1>", `href="/webhook-deliveries/`+l.created+`"`, `href="/webhook-deliveries/`+l.resolved+`"`,
			"Ticket resolved", "HTTP 200", "HTTP 503", `<a href="/webhook" aria-current="page">Webhooks</a>`).
		lacks(l.failed, `name="account"`, "<th scope=\"col\">Account</th>")
	// An owner cannot widen the log to another account.
	ada.get("/webhook-deliveries?account=" + *l.bob.AccountID).expect(http.StatusOK).lacks(l.failed)

	s := l.signedIn("help@example.com")
	cases := []struct {
		query       string
		status      int
		want, lacks []string
	}{
		{"", 200, []string{l.created, l.resolved, l.failed, `name="account"`, "<th scope=\"col\">Account</th>"}, nil},
		{"?status=failed", 200, []string{l.failed}, []string{l.created, l.resolved}},
		{"?status=pending", 200, []string{l.resolved}, []string{l.created, l.failed}},
		{"?event_type=ticket.created", 200, []string{l.created, l.failed}, []string{l.resolved}},
		{"?account=bob@example.com", 200, []string{l.failed, "Redeliver failed deliveries"}, []string{l.created}},
		{"?account=" + *l.ada.AccountID, 200, []string{l.created, l.resolved}, []string{l.failed}},
		{"?ticket=" + l.adaTicket.ID, 200, []string{l.created, l.resolved}, []string{l.failed}},
		{"?ticket=" + l.adaTicket.ID + "&status=succeeded", 200, []string{l.created}, []string{l.resolved, l.failed}},
		{"?event_type=webhook.test", 200, []string{"No deliveries match these filters"}, []string{l.created}},
		{"?status=lost", 422, []string{`id="field-status-error"`, "No deliveries shown"}, []string{l.created}},
		{"?account=nobody@example.com", 422, []string{"Account (email or ID) does not match any account; give an account ID or the email of its owner."}, []string{l.created}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			s.get("/webhook-deliveries" + c.query).expect(c.status).contains(c.want...).lacks(c.lacks...)
		})
	}
	s.get("/webhook-deliveries").contains(`<a href="/webhook-deliveries" aria-current="page">Deliveries</a>`)
}

// The detail page shows the request as sent, token masked, and every
// attempt with what the receiver answered.
func TestDeliveryDetail(t *testing.T) {
	l := newDeliveryLog(t)
	ada := l.signedIn("ada@example.com")
	l.clock.Advance(time.Minute)
	l.answer(502, true)
	res := ada.get("/webhook-deliveries/"+l.resolved).expect(http.StatusOK).
		contains("<h1>Ticket resolved</h1>", "https://hooks.ada.example.com/in", ">Pending</span>",
			"As sent with attempt 2; the token is masked.", "Authorization", "Bearer cpwh_",
			"&#34;type&#34;: &#34;ticket.resolved&#34;", "&#34;status&#34;: &#34;solved&#34;", l.adaTicket.ID,
			"2 attempts, newest first", "Attempt 2", "Attempt 1", "203.0.113.7:443", "42 ms", "502", "503",
									"HTTP Bad Gateway", "X-Receiver", "hooks-1", "{&#34;error&#34;:&#34;not now&#34;}", "2 Jan 2026, 03:07:05 UTC").
		lacks("Redeliver</button>", `class="error-kind">http<`) // the error says HTTP once
	ep, _ := l.store.Webhook(context.Background(), l.ada.Actor(), "")
	if strings.Contains(res.Body, ep.Token) {
		t.Fatal("the token is in the page")
	}
	if strings.Index(res.Body, "Attempt 2") > strings.Index(res.Body, "Attempt 1") {
		t.Fatal("attempts are not newest first")
	}
	ada.get("/webhook-deliveries/"+l.created).expect(http.StatusOK).contains(">Succeeded</span>", "Delivered", "Redeliver</button>")
}

// A pending delivery's page and the log reload themselves, and only while
// something is pending; the reload answers the polled part alone.
func TestPendingDeliveriesPoll(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.webhook(ada, "https://hooks.example.com/")
	e.ticket(ada, "one")
	id := e.deliveryIDs(ada.Actor(), models.DeliveryFilter{})[0]
	b := e.signedIn("ada@example.com")
	page := "/webhook-deliveries/" + id
	b.get(page).expect(http.StatusOK).
		contains(`id="delivery" class="delivery" hx-get="`+page+`" hx-trigger="every 2s" hx-target="this" hx-swap="outerHTML"`, "Sending…", "No attempts yet",
			"The headers are recorded with the first attempt.")
	b.get("/webhook-deliveries").contains(`hx-get="/webhook-deliveries?" hx-trigger="every 2s"`)
	b.get("/webhook-deliveries?status=pending").contains(`hx-get="/webhook-deliveries?status=pending" hx-trigger="every 2s"`)

	b.htmx = true
	b.header.Set("HX-Target", "delivery")
	b.get(page).expect(http.StatusOK).contains(`<div id="delivery"`, "every 2s").lacks("<title>", "site-header", `id="flash"`)
	b.header.Set("HX-Target", "deliveries")
	b.get("/webhook-deliveries").expect(http.StatusOK).contains(`<section id="deliveries"`, "every 2s").
		lacks("<title>", "site-header", "<h1>")

	// A retry a minute away is polled for less often.
	e.answer(500, true)
	b.header.Set("HX-Target", "delivery")
	b.get(page).contains(`hx-trigger="every 30s"`, "Retrying; next attempt", "2 Jan 2026, 03:05:05 UTC", "(in 1 min)")
	e.clock.Advance(50 * time.Second)
	b.get(page).contains(`hx-trigger="every 10s"`, "(in 10 s)")

	// Settled: nothing polls any more (the header's search field has a
	// trigger of its own, on input).
	e.clock.Advance(10 * time.Second)
	e.answer(200, false)
	b.get(page).expect(http.StatusOK).contains(">Succeeded</span>").lacks(`hx-trigger="every`, "data-polling")
	b.header.Set("HX-Target", "deliveries")
	b.get("/webhook-deliveries").contains(">Succeeded</span>").lacks(`hx-trigger="every`, "data-polling")
	b.header.Del("HX-Target")
	b.htmx = false
	b.get(page).lacks(`hx-trigger="every`)
}

func TestRedeliverOne(t *testing.T) {
	l := newDeliveryLog(t)
	s := l.signedIn("help@example.com")
	page := "/webhook-deliveries/" + l.failed
	s.get(page).expect(http.StatusOK).contains(">Failed</span>", "Gave up", `action="`+page+`/redeliver"`)
	l.clock.Advance(time.Second)
	s.post(page+"/redeliver", nil).expect(http.StatusSeeOther).redirectsTo(page)
	s.get(page).contains("Delivery queued again.", ">Pending</span>", "every 2s").lacks("Redeliver</button>")
	if got := l.deliveryStatus(l.failed); got != models.DeliveryPending {
		t.Fatalf("status %s", got)
	}
	// The owner's activity shows the redelivery; the audit event names who.
	ev := l.events(l.bob, 1)[0]
	if ev.ResourceName != "webhook_delivery" || ev.Action != "redelivered" || *ev.ActorLRN != "lrn:cloud:user:"+l.help.ID {
		t.Fatalf("event %+v", ev)
	}
	// Pending already: refused on the page, nothing changes.
	s.post(page+"/redeliver", nil).expect(http.StatusUnprocessableEntity).
		contains("Not redelivered", "The delivery is still pending; it is redelivered on its own.")
}

// Every failed delivery of an endpoint since a time, queued again at
// once: the owner's own, or an account's for support staff.
func TestRedeliverFailedSince(t *testing.T) {
	l := newDeliveryLog(t)
	l.clock.Advance(time.Minute)
	l.answer(500, false) // ada's resolved delivery gives up
	ada := l.signedIn("ada@example.com")
	ada.get("/webhook-deliveries").contains("Redeliver failed deliveries", `name="since" type="datetime-local" value="2026-01-01T03:07"`)
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"yesterday"}}).expect(http.StatusUnprocessableEntity).
		fieldError("since", "Failed since (UTC) must be a date and time, such as 2026-01-02T15:04.")
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {""}}).expect(http.StatusUnprocessableEntity).
		fieldError("since", "Failed since (UTC) is required.")
	l.clock.Advance(time.Second)
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-02T03:00"}}).
		expect(http.StatusSeeOther).redirectsTo("/webhook-deliveries")
	ada.get("/webhook-deliveries").contains("1 failed delivery queued again.")
	if l.deliveryStatus(l.resolved) != models.DeliveryPending || l.deliveryStatus(l.failed) != models.DeliveryFailed {
		t.Fatal("redelivered the wrong deliveries")
	}
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-02T03:00"}}).expect(http.StatusSeeOther)
	ada.get("/webhook-deliveries").contains("No failed deliveries since then; nothing was queued.")
	// Switching the webhook off fails what was pending; it cannot be
	// redelivered until the webhook is on again, and the log says so.
	adaEndpoint, _ := l.store.Webhook(context.Background(), l.ada.Actor(), "")
	ada.post("/webhook/"+adaEndpoint.ID+"/enabled", url.Values{"enabled": {"false"}}).expect(http.StatusSeeOther)
	ada.get("/webhook-deliveries").contains("Your webhook is disabled", "Enable it on the Webhooks page first").
		lacks(`action="/webhook-deliveries/redeliver-failed"`)
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-02T03:00"}}).
		expect(http.StatusUnprocessableEntity).contains("Your webhook is disabled")
	ada.post("/webhook/"+adaEndpoint.ID+"/enabled", url.Values{"enabled": {"true"}}).expect(http.StatusSeeOther)

	s := l.signedIn("help@example.com")
	s.get("/webhook-deliveries").lacks("Redeliver failed deliveries") // no one endpoint in view
	s.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-02T03:00"}}).
		expect(http.StatusUnprocessableEntity).contains("Account id is required for support staff.")
	s.get("/webhook-deliveries?account=bob@example.com").contains(`name="account" value="bob@example.com"`)
	s.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-02T03:00"}, "account": {"bob@example.com"}}).
		expect(http.StatusSeeOther).redirectsTo("/webhook-deliveries?account=bob%40example.com")
	if l.deliveryStatus(l.failed) != models.DeliveryPending {
		t.Fatal("bob's delivery was not redelivered")
	}
}

// The log finds an event by its id (the webhook-id a receiver logged) and
// narrows to one endpoint.
func TestDeliveryLogEventAndEndpointFilters(t *testing.T) {
	l := newDeliveryLog(t)
	second := l.endpoint(l.ada, "https://second.ada.example.com/in")
	l.clock.Advance(time.Minute)
	l.ticket(l.ada, "to both")
	ada := l.signedIn("ada@example.com")
	d, err := l.store.WebhookDelivery(context.Background(), l.ada.Actor(), l.resolved)
	if err != nil {
		t.Fatal(err)
	}
	ada.get("/webhook-deliveries").contains(`name="event"`, `name="endpoint"`, `<option value="`+second.ID+`">https://second.ada.example.com/in</option>`)
	ada.get("/webhook-deliveries?event=" + d.EventID).expect(http.StatusOK).
		contains(`href="/webhook-deliveries/` + l.resolved + `"`).lacks(`href="/webhook-deliveries/` + l.created + `"`)
	ada.get("/webhook-deliveries?event=not-an-id").expect(http.StatusUnprocessableEntity).
		fieldError("event", "Event ID (webhook-id) is not an event id (32 letters and digits, as in webhook-id).")
	onSecond := l.deliveryIDs(l.ada.Actor(), models.DeliveryFilter{EndpointID: second.ID})
	if len(onSecond) != 1 {
		t.Fatalf("second endpoint: %v", onSecond)
	}
	ada.get("/webhook-deliveries?endpoint="+second.ID).expect(http.StatusOK).
		contains(`href="/webhook-deliveries/`+onSecond[0]+`"`, `title="https://second.ada.example.com/in">https://second.ada.example.com/in</code>`).lacks(`href="/webhook-deliveries/` + l.resolved + `"`)
	// Another account's endpoint shows nothing of it.
	l.signedIn("bob@example.com").get("/webhook-deliveries?endpoint=" + second.ID).expect(http.StatusOK).lacks(onSecond[0])
}

// An owner reaches only their own deliveries.
func TestDeliveriesOfAnotherAccount(t *testing.T) {
	l := newDeliveryLog(t)
	ada := l.signedIn("ada@example.com")
	page := "/webhook-deliveries/" + l.failed
	ada.get(page).expect(http.StatusNotFound).lacks("hooks.bob")
	ada.post(page+"/redeliver", nil).expect(http.StatusNotFound)
	ada.get("/webhook-deliveries/nope").expect(http.StatusNotFound)
	ada.post("/webhook-deliveries/redeliver-failed", url.Values{"since": {"2026-01-01T00:00"}, "account": {"bob@example.com"}}).
		expect(http.StatusSeeOther)
	if got := l.deliveryStatus(l.failed); got != models.DeliveryFailed {
		t.Fatalf("bob's delivery %s after ada's redelivery", got)
	}
}

func TestRedeliverNeedsTheCSRFToken(t *testing.T) {
	l := newDeliveryLog(t)
	s := l.signedIn("help@example.com")
	for _, path := range []string{"/webhook-deliveries/" + l.failed + "/redeliver", "/webhook-deliveries/redeliver-failed"} {
		none := url.Values{"csrf_token": {""}, "since": {"2026-01-01T00:00"}, "account": {"bob@example.com"}}
		s.post(path, none).expect(http.StatusForbidden)
	}
	if got := l.deliveryStatus(l.failed); got != models.DeliveryFailed {
		t.Fatalf("status %s without a token", got)
	}
}

// A ticket links to its deliveries, and each delivery to its ticket.
func TestTicketAndDeliveriesLink(t *testing.T) {
	l := newDeliveryLog(t)
	s := l.signedIn("help@example.com")
	s.get("/tickets/" + l.adaTicket.ID).contains(`href="/webhook-deliveries?ticket=` + l.adaTicket.ID + `"`)
	s.get("/webhook-deliveries/"+l.resolved).contains(`href="/tickets/`+l.adaTicket.ID+`"`, *l.ada.AccountID)
}
