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

// webhook points u's webhook at url, as the CLI would.
func (e *env) webhook(u *models.User, url string) *models.WebhookEndpoint {
	e.t.Helper()
	ep, _, err := e.store.SetWebhook(context.Background(), u.Actor(), models.SetWebhookInput{URL: url})
	if err != nil {
		e.t.Fatal(err)
	}
	return ep
}

// endpoint adds another endpoint to u's account, receiving every event.
func (e *env) endpoint(u *models.User, url string) *models.WebhookEndpoint {
	e.t.Helper()
	ep, _, err := e.store.CreateWebhookEndpoint(context.Background(), u.Actor(), models.SetWebhookInput{URL: url})
	if err != nil {
		e.t.Fatal(err)
	}
	return ep
}

// answer makes one attempt of every due delivery, as the dispatcher
// would, with the receiver answering code. A failure is retried a minute
// later when retry is set, or gives up; 410 disables the endpoint.
func (e *env) answer(code int, retry bool) []models.DeliveryJob {
	e.t.Helper()
	ctx := context.Background()
	jobs, err := e.store.ClaimWebhookDeliveries(ctx, "test", 100, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	var records []models.AttemptRecord
	for _, job := range jobs {
		body := `{"ok":true}`
		if code >= 300 {
			body = `{"error":"not now"}`
		}
		a := models.WebhookAttempt{URL: job.URL, StartedAt: e.clock.Now(), Duration: 42 * time.Millisecond,
			RemoteAddr: "203.0.113.7:443", StatusCode: code, Succeeded: code < 300,
			RequestHeaders:  map[string]string{"Authorization": "Bearer " + models.MaskToken(job.Token), "Content-Type": "application/json"},
			ResponseHeaders: map[string][]string{"X-Receiver": {"hooks-1"}}, ResponseBody: []byte(body)}
		var dec models.DeliveryDecision
		switch {
		case code == http.StatusGone:
			a.ErrorKind, a.Error = "http", "HTTP 410"
			dec.DisableEndpoint = "the receiver answered 410 Gone"
		case code >= 300:
			a.ErrorKind, a.Error = "http", "HTTP "+http.StatusText(code)
			if retry {
				at := e.clock.Now().Add(time.Minute)
				dec.RetryAt = &at
			}
		}
		records = append(records, models.AttemptRecord{Job: job, Attempt: a, Decision: dec})
	}
	if err := e.store.RecordWebhookAttempts(ctx, "test", records); err != nil {
		e.t.Fatal(err)
	}
	return jobs
}

var (
	tokenInPage = regexp.MustCompile(`id="webhook-token" class="secret">(cpwh_[A-Za-z0-9_-]+)<`)
	whsecInPage = regexp.MustCompile(`id="webhook-secret" class="secret">(whsec_[A-Za-z0-9+/=]+)<`)
	allTypes    = []string{models.EventTicketCreated, models.EventTicketStatusChanged, models.EventTicketResolved}
)

// Adding an endpoint shows its token and signing secret once; the pages
// afterwards show only the token's first characters.
func TestSetUpWebhook(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/webhook").expect(http.StatusOK).
		contains("<h1>Webhooks</h1>", "Set up a webhook", `name="url"`, `value="ticket.resolved" checked`,
			`<a href="/webhook" aria-current="page">Webhooks</a>`).
		lacks("Delivery log")
	b.post("/webhook", url.Values{"url": {"http://hooks.example.com/x"}, "event_types": allTypes}).expect(http.StatusUnprocessableEntity).
		fieldError("url", "URL must use https.").contains(`value="http://hooks.example.com/x"`)
	for _, internal := range []string{"https://10.0.0.1/x", "https://127。0。0。1/", "https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/"} {
		b.post("/webhook", url.Values{"url": {internal}, "event_types": allTypes}).expect(http.StatusUnprocessableEntity).
			fieldError("url", "URL must not point to a private, loopback or link-local address.")
	}
	b.post("/webhook", url.Values{"url": {"https://hooks.example.com/x"}}).expect(http.StatusUnprocessableEntity).
		fieldError("event_types", "Choose at least one event type.")
	b.post("/webhook", url.Values{"url": {"https://hooks.example.com/x"}, "event_types": {"instance.launched"}}).
		expect(http.StatusUnprocessableEntity).contains("Unknown event type")

	res := b.post("/webhook", url.Values{"url": {"https://hooks.example.com/cloudplane"}, "event_types": allTypes}).
		expect(http.StatusCreated).contains("Your endpoint is set up", "Copy it now.", `id="webhook-secret" class="secret">whsec_`, "Enabled")
	m := tokenInPage.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no token in page:\n%s", res.Body)
	}
	token := m[1]
	if strings.Count(res.Body, token) != 1 {
		t.Fatal("the token appears more than once")
	}
	ep, err := e.store.Webhook(context.Background(), ada.Actor(), "")
	if err != nil || ep.Token != token {
		t.Fatalf("stored token %v, %v", ep, err)
	}
	b.get("/webhook/"+ep.ID).expect(http.StatusOK).
		contains("Events are delivered", "<code>"+models.MaskToken(token)+"</code>", "Send example</button>", "No delivery attempts",
			"Nothing sent yet.", `value="https://hooks.example.com/cloudplane"`, `href="/webhook-deliveries?endpoint=`+ep.ID+`"`,
			"Reveal secret", "Rotate secret", "Delete endpoint").
		lacks(token, ep.Secret, "Copy it now.")

	// Changing the URL and the event types keeps the token.
	e.clock.Advance(time.Second)
	b.post("/webhook/"+ep.ID, url.Values{"url": {"https://hooks.example.com/v2"}, "event_types": {"ticket.resolved"}}).
		expect(http.StatusSeeOther).redirectsTo("/webhook/" + ep.ID)
	b.get("/webhook/"+ep.ID).contains("Endpoint saved.", `value="https://hooks.example.com/v2"`, `value="ticket.resolved" checked`).
		lacks(token, `value="ticket.created" checked`)
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); ep.Token != token || len(ep.EventTypes) != 1 {
		t.Fatalf("after the change: %+v", ep)
	}
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "webhook" || ev.Action != "updated" || ev.AdditionalDetails.Map()["url"] != "https://hooks.example.com/v2" {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Webhook https://hooks.example.com/v2 changed", "Webhook https://hooks.example.com/v2 set up")
	b.get("/webhook/0123456789abcdef0123456789abcdef").expect(http.StatusNotFound)
}

// An account has up to MaxWebhookEndpoints; the form says so once it is
// full, and a create past it is refused with the quota's message.
func TestWebhookEndpointQuotaPage(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	for i := range models.MaxWebhookEndpoints {
		e.endpoint(ada, "https://hooks.example.com/"+strconv.Itoa(i))
	}
	b := e.signedIn("ada@example.com")
	b.get("/webhook").contains("An account may have 10 endpoints.", "https://hooks.example.com/9").lacks("Add endpoint</button>")
	b.post("/webhook", url.Values{"url": {"https://hooks.example.com/x"}, "event_types": allTypes}).
		expect(http.StatusUnprocessableEntity).contains("quota of 10 webhook endpoints")
}

func TestRotateWebhookToken(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	old := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	path := "/webhook/" + old.ID + "/rotate-token"
	b.get(path).expect(http.StatusOK).
		contains("<!doctype html>", "Rotate the webhook token?", models.MaskToken(old.Token), `action="`+path+`"`, `href="/webhook/`+old.ID+`"`)
	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get(path).expect(http.StatusOK).contains("Rotate the webhook token?", "data-dialog-close").
		lacks("<!doctype html>", "site-header")
	b.header.Del("HX-Target")
	b.htmx = false

	e.clock.Advance(time.Second)
	res := b.post(path, nil).expect(http.StatusOK).contains("Your new bearer token", "Copy it now.").
		lacks("whsec_")
	m := tokenInPage.FindStringSubmatch(res.Body)
	if m == nil || m[1] == old.Token || strings.Count(res.Body, m[1]) != 1 {
		t.Fatalf("new token %v", m)
	}
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); ep.Token != m[1] {
		t.Fatal("the token shown is not the one stored")
	}
	b.get("/webhook/"+old.ID).lacks(m[1], old.Token)
	if ev := e.events(ada, 1)[0]; ev.Action != "token_rotated" || ev.AdditionalDetails.Map()["token_changed"] != true {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Token of webhook https://hooks.example.com/ rotated")
}

// The signing secret is shown again in a session whose user proved who
// they are within the re-authentication window (a new sign-in has), and
// rotating it shows the new one and how long the old one still signs.
func TestRevealAndRotateWebhookSecret(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	path := "/webhook/" + ep.ID + "/secret"
	b.get(path).expect(http.StatusOK).contains("Show secret").lacks(ep.Secret, `name="password"`)
	e.clock.Advance(time.Second)
	b.post(path, nil).expect(http.StatusOK).contains(`id="webhook-secret" class="secret">`+ep.Secret+"<",
		`<a class="button button-primary" href="/webhook/`+ep.ID+`">Done, back to the endpoint</a>`)
	if ev := e.events(ada, 1)[0]; ev.Action != "secret_revealed" {
		t.Fatalf("event %+v", ev)
	}

	rotate := "/webhook/" + ep.ID + "/rotate-secret"
	b.get(rotate).expect(http.StatusOK).contains("Rotate the signing secret?", "For the next 24 hours the current secret signs")
	e.clock.Advance(time.Second)
	// The new secret says until when the old one signs beside it, there,
	// rather than pointing at another card.
	res := b.post(rotate, nil).expect(http.StatusOK).contains("Your new signing secret", "Rotating: the previous secret also signs",
		`Until <time datetime="2026-01-03T03:04:07Z"`).lacks("the time below")
	m := whsecInPage.FindStringSubmatch(res.Body)
	stored, _ := e.store.WebhookEndpoint(context.Background(), ada.Actor(), ep.ID)
	if m == nil || m[1] == ep.Secret || m[1] != stored.Secret || stored.PreviousSecret != ep.Secret {
		t.Fatalf("new secret %v, stored %+v", m, stored)
	}
	if ev := e.events(ada, 1)[0]; ev.Action != "secret_rotated" {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Signing secret of webhook https://hooks.example.com/ rotated", "Signing secret of webhook https://hooks.example.com/ revealed")
	e.clock.Advance(24 * time.Hour)
	b.get("/webhook/" + ep.ID).lacks("Rotating: the previous secret")
	// Another account's endpoint is not found, whatever the password.
	e.owner("bob@example.com")
	e.signedIn("bob@example.com").post(path, url.Values{"password": {password}}).expect(http.StatusNotFound).lacks(ep.Secret)
}

// Switching one endpoint off and on leaves the others as they are.
func TestWebhookSwitch(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	other := e.endpoint(ada, "https://other.example.com/")
	b := e.signedIn("ada@example.com")
	base := "/webhook/" + ep.ID
	b.post(base+"/enabled", url.Values{"enabled": {"false"}}).expect(http.StatusSeeOther).redirectsTo(base)
	b.get(base).contains("Endpoint disabled.", ">Disabled</span>", "You switched this endpoint off", `name="enabled" value="true"`).
		contains("Enable the endpoint to send it an example.").lacks("Send example</button>")
	b.get("/").lacks("was disabled") // the owner's own choice needs no warning
	b.post(base+"/test", nil).expect(http.StatusUnprocessableEntity).
		contains("Nothing was changed", "The webhook is disabled; enable it before sending a test event.")
	b.post(base+"/enabled", url.Values{"enabled": {"maybe"}}).expect(http.StatusUnprocessableEntity).
		contains("Enabled must be true or false.")
	if o, _ := e.store.WebhookEndpoint(context.Background(), ada.Actor(), other.ID); !o.Enabled {
		t.Fatal("disabling one endpoint disabled another")
	}
	b.post(base+"/enabled", url.Values{"enabled": {"true"}}).expect(http.StatusSeeOther)
	b.get(base).contains("Endpoint enabled.", "Events are delivered")
	b.get("/").contains("Webhook https://hooks.example.com/ disabled", "Webhook https://hooks.example.com/ enabled")
}

// A receiver that answers 410 Gone switches its endpoint off; the
// endpoint's page, the webhooks page and the overview say why.
func TestWebhookDisabledByGone(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	e.ticket(ada, "one")
	e.answer(http.StatusGone, true)
	b := e.signedIn("ada@example.com")
	b.get("/webhook/"+ep.ID).contains(">Disabled</span>", "cloudplane switched this endpoint off",
		"the receiver answered 410 Gone.", `datetime="2026-01-02T03:04:05Z"`)
	b.get("/webhook").contains("A webhook endpoint was disabled", "because the receiver answered 410 Gone")
	b.get("/").contains("A webhook endpoint was disabled", "cloudplane switched off https://hooks.example.com/ because the receiver answered 410 Gone.",
		"Webhook https://hooks.example.com/ disabled")
}

// Health over the last day: success rate, latency and the last error, and
// the overview's warning while the latest attempt failed.
func TestWebhookHealthAndWarning(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	e.ticket(ada, "one")
	e.answer(200, false)
	e.clock.Advance(time.Minute)
	e.ticket(ada, "two")
	e.answer(503, true)
	b := e.signedIn("ada@example.com")
	page := "/webhook/" + ep.ID
	b.get(page).contains("50%", "1 of 2 attempts succeeded", "42 ms", "the longest took 42 ms", "HTTP Service Unavailable",
		`datetime="2026-01-02T03:05:05Z"`, "Deliveries are failing")
	b.get("/webhook").contains("50%", ">Failing</span>")
	b.get("/").contains("Webhook deliveries are failing", "The last attempt to https://hooks.example.com/ failed: HTTP Service Unavailable.",
		`href="/webhook-deliveries?endpoint=`+ep.ID+`&amp;status=failing"`, "See this endpoint’s failing deliveries")
	// The link shows the delivery being retried, not the one that succeeded.
	b.get("/webhook-deliveries?endpoint="+ep.ID+"&status=failing").expect(http.StatusOK).
		contains(`<option value="failing" selected>`, ">Pending</span>").lacks(">Succeeded</span>")
	e.clock.Advance(time.Minute)
	e.answer(200, false)
	b.get(page).contains("66.7%", "2 of 3 attempts succeeded", "deliveries have succeeded since", "Events are delivered").
		lacks("Deliveries are failing")
	b.get("/").lacks("Webhook deliveries are failing")
}

func TestSendTestWebhookEvent(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/webhook/0123456789abcdef0123456789abcdef/test", nil).expect(http.StatusNotFound)
	ep := e.webhook(ada, "https://hooks.example.com/")
	e.clock.Advance(time.Second)
	to := "/webhook-deliveries?event_type=webhook.test&endpoint=" + ep.ID
	b.post("/webhook/"+ep.ID+"/test", nil).expect(http.StatusSeeOther).redirectsTo(to)
	b.get(to).expect(http.StatusOK).
		contains("Example webhook.test event queued.", "Test event", ">Pending</span>", "Not tried yet")
	if ev := e.events(ada, 1)[0]; ev.ResourceName != "webhook" || ev.Action != "tested" {
		t.Fatalf("event %+v", ev)
	}
}

// Deleting an endpoint asks first, then drops its queue and its log and
// leaves the other endpoints alone.
func TestDeleteWebhook(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	other := e.endpoint(ada, "https://other.example.com/")
	e.ticket(ada, "one")
	b := e.signedIn("ada@example.com")
	b.get("/webhook/"+ep.ID+"/delete").expect(http.StatusOK).contains("Delete this endpoint?", "its pending deliveries are dropped")
	b.post("/webhook/"+ep.ID+"/delete", nil).expect(http.StatusSeeOther).redirectsTo("/webhook")
	b.get("/webhook").contains("Endpoint https://hooks.example.com/ deleted.", "https://other.example.com/")
	b.get("/webhook/" + ep.ID).expect(http.StatusNotFound)
	var left []models.WebhookDelivery
	e.store.DB().Find(&left)
	if len(left) != 1 || left[0].EndpointID != other.ID {
		t.Fatalf("deliveries left: %+v", left)
	}
	b.get("/").contains("Webhook https://hooks.example.com/ deleted")
}

// Endpoints are the owner's: support staff have none to see or change.
func TestSupportStaffHaveNoWebhook(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	base := "/webhook/" + ep.ID
	s.get("/webhook").expect(http.StatusForbidden).lacks("hooks.example.com")
	for _, path := range []string{base, base + "/rotate-token", base + "/rotate-secret", base + "/secret", base + "/delete"} {
		s.get(path).expect(http.StatusForbidden).lacks(ep.Secret)
	}
	for _, path := range []string{"/webhook", base, base + "/enabled", base + "/test", base + "/rotate-token", base + "/rotate-secret",
		base + "/secret", base + "/delete", base + "/headers"} {
		s.post(path, url.Values{"url": {"https://evil.example.com/"}, "enabled": {"false"}, "password": {password},
			"header_name_0": {"X-Evil"}, "header_value_0": {"1"}}).
			expect(http.StatusForbidden).lacks(ep.Secret)
	}
	if got, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); !got.Enabled || got.URL != ep.URL || got.Secret != ep.Secret {
		t.Fatalf("ada's webhook after support: %+v", got)
	}
}

func TestWebhookFormsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	old := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	base := "/webhook/" + old.ID
	for _, path := range []string{"/webhook", base, base + "/enabled", base + "/test", base + "/rotate-token", base + "/rotate-secret",
		base + "/secret", base + "/delete"} {
		b.post(path, url.Values{"csrf_token": {""}, "url": {"https://evil.example.com/"}, "enabled": {"false"}, "password": {password}}).
			expect(http.StatusForbidden).lacks(old.Secret)
	}
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); !ep.Enabled || ep.URL != old.URL || ep.Token != old.Token || ep.Secret != old.Secret {
		t.Fatalf("changed without a token: %+v", ep)
	}
}

// An endpoint whose attempts fail for 5 days is switched off; the owner
// is told on the overview and the webhooks page, and the audit log says so.
func TestWebhookDisabledAfterDaysOfFailures(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	for day := range 6 {
		if day > 0 {
			e.clock.Advance(24 * time.Hour)
		}
		e.ticket(ada, "day "+strconv.Itoa(day))
		e.answer(500, false)
	}
	b := e.signedIn("ada@example.com")
	b.get("/").contains("A webhook endpoint was disabled", "every delivery attempt failed for 5 days", "Webhook https://hooks.example.com/ disabled")
	b.get("/webhook").contains("A webhook endpoint was disabled", ">Disabled</span>")
	b.get("/webhook/"+ep.ID).contains("cloudplane switched this endpoint off", "every delivery attempt failed for 5 days")
}
