package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
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

var tokenInPage = regexp.MustCompile(`id="webhook-token" class="secret">(cpwh_[A-Za-z0-9_-]+)<`)

// Setting up a webhook shows its token and signing secret once; the page
// afterwards shows only the token's first characters.
func TestSetUpWebhook(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/webhook").expect(http.StatusOK).
		contains("<h1>Webhooks</h1>", "Set up a webhook", `name="url"`, `<a href="/webhook" aria-current="page">Webhooks</a>`).
		lacks("Delivery log")
	b.post("/webhook", url.Values{"url": {"http://hooks.example.com/x"}}).expect(http.StatusUnprocessableEntity).
		fieldError("url", "URL must use https.").contains(`value="http://hooks.example.com/x"`)
	b.post("/webhook", url.Values{"url": {"https://10.0.0.1/x"}}).expect(http.StatusUnprocessableEntity).
		fieldError("url", "URL must not point to a private, loopback or link-local address.")

	res := b.post("/webhook", url.Values{"url": {"https://hooks.example.com/cloudplane"}}).expect(http.StatusCreated).
		contains("Your webhook is set up", "Copy it now.", `id="webhook-secret" class="secret">whsec_`, "Enabled")
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
	b.get("/webhook").expect(http.StatusOK).
		contains("Events are delivered", "<code>"+models.MaskToken(token)+"</code>", "Send test event", "No delivery attempts",
			"Nothing sent yet.", `value="https://hooks.example.com/cloudplane"`, `href="/webhook-deliveries"`).
		lacks(token, ep.Secret, "Copy it now.")

	// Changing the URL keeps the token.
	e.clock.Advance(time.Second)
	b.post("/webhook", url.Values{"url": {"https://hooks.example.com/v2"}}).expect(http.StatusSeeOther).redirectsTo("/webhook")
	b.get("/webhook").contains("Webhook URL saved.", `value="https://hooks.example.com/v2"`).lacks(token)
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); ep.Token != token {
		t.Fatal("changing the URL changed the token")
	}
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "webhook" || ev.Action != "updated" || ev.AdditionalDetails["url"] != "https://hooks.example.com/v2" {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Webhook changed", "Webhook set up")
}

func TestRotateWebhookToken(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	old := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	b.get("/webhook/rotate-token").expect(http.StatusOK).
		contains("<!doctype html>", "Rotate the webhook token?", models.MaskToken(old.Token), `action="/webhook/rotate-token"`, `href="/webhook"`)
	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get("/webhook/rotate-token").expect(http.StatusOK).contains("Rotate the webhook token?", "data-dialog-close").
		lacks("<!doctype html>", "site-header")
	b.header.Del("HX-Target")
	b.htmx = false

	e.clock.Advance(time.Second)
	res := b.post("/webhook/rotate-token", nil).expect(http.StatusOK).contains("Your new bearer token", "Copy it now.").
		lacks("whsec_")
	m := tokenInPage.FindStringSubmatch(res.Body)
	if m == nil || m[1] == old.Token || strings.Count(res.Body, m[1]) != 1 {
		t.Fatalf("new token %v", m)
	}
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); ep.Token != m[1] {
		t.Fatal("the token shown is not the one stored")
	}
	b.get("/webhook").lacks(m[1], old.Token)
	if ev := e.events(ada, 1)[0]; ev.AdditionalDetails["token_changed"] != true {
		t.Fatalf("event %+v", ev)
	}
}

// Switching the webhook off and on, with the overview warning while it is
// off.
func TestWebhookSwitch(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	b.get("/").lacks("Your webhook")
	b.post("/webhook/enabled", url.Values{"enabled": {"false"}}).expect(http.StatusSeeOther).redirectsTo("/webhook")
	b.get("/webhook").contains("Webhook disabled.", ">Disabled</span>", "You switched the webhook off", `name="enabled" value="true"`).
		lacks("Send test event")
	b.get("/").contains("Your webhook is disabled", "Enable it on the Webhooks page")
	b.post("/webhook/test", nil).expect(http.StatusUnprocessableEntity).
		contains("Nothing was changed", "The webhook is disabled; enable it before sending a test event.")
	b.post("/webhook/enabled", url.Values{"enabled": {"maybe"}}).expect(http.StatusUnprocessableEntity).
		contains("Enabled must be true or false.")
	b.post("/webhook/enabled", url.Values{"enabled": {"true"}}).expect(http.StatusSeeOther)
	b.get("/webhook").contains("Webhook enabled.", "Events are delivered")
	b.get("/").lacks("Your webhook")
}

// A receiver that answers 410 Gone switches the webhook off; the page and
// the overview say why.
func TestWebhookDisabledByGone(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.webhook(ada, "https://hooks.example.com/")
	e.ticket(ada, "one")
	e.answer(http.StatusGone, true)
	b := e.signedIn("ada@example.com")
	b.get("/webhook").contains(">Disabled</span>", "cloudplane switched the webhook off",
		"the receiver answered 410 Gone.", `datetime="2026-01-02T03:04:05Z"`)
	b.get("/").contains("Your webhook was disabled", "cloudplane switched it off because the receiver answered 410 Gone.",
		"Webhook disabled")
}

// Health over the last day: success rate and the last error, and the
// overview's warning while the latest attempt failed.
func TestWebhookHealthAndWarning(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.webhook(ada, "https://hooks.example.com/")
	e.ticket(ada, "one")
	e.answer(200, false)
	e.clock.Advance(time.Minute)
	e.ticket(ada, "two")
	e.answer(503, true)
	b := e.signedIn("ada@example.com")
	b.get("/webhook").contains("50%", "1 of 2 attempts succeeded", "HTTP Service Unavailable", `datetime="2026-01-02T03:05:05Z"`,
		"Deliveries are failing")
	b.get("/").contains("Webhook deliveries are failing", "The last attempt failed: HTTP Service Unavailable.")
	e.clock.Advance(time.Minute)
	e.answer(200, false)
	b.get("/webhook").contains("66.7%", "2 of 3 attempts succeeded", "deliveries have succeeded since", "Events are delivered").
		lacks("Deliveries are failing")
	b.get("/").lacks("Webhook deliveries are failing")
}

func TestSendTestWebhookEvent(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/webhook/test", nil).expect(http.StatusNotFound)
	e.webhook(ada, "https://hooks.example.com/")
	e.clock.Advance(time.Second)
	b.post("/webhook/test", nil).expect(http.StatusSeeOther).redirectsTo("/webhook-deliveries?event_type=webhook.test")
	b.get("/webhook-deliveries?event_type=webhook.test").expect(http.StatusOK).
		contains("Test event queued.", "Test event", ">Pending</span>", "Not tried yet")
	if ev := e.events(ada, 1)[0]; ev.ResourceName != "webhook" || ev.Action != "tested" {
		t.Fatalf("event %+v", ev)
	}
}

// The webhook is the owner's: support staff have none to see or change.
func TestSupportStaffHaveNoWebhook(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.webhook(ada, "https://hooks.example.com/")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/webhook").expect(http.StatusForbidden).lacks("hooks.example.com")
	s.get("/webhook/rotate-token").expect(http.StatusForbidden)
	for _, path := range []string{"/webhook", "/webhook/enabled", "/webhook/test", "/webhook/rotate-token"} {
		s.post(path, url.Values{"url": {"https://evil.example.com/"}, "enabled": {"false"}}).expect(http.StatusForbidden)
	}
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); !ep.Enabled || ep.URL != "https://hooks.example.com/" {
		t.Fatalf("ada's webhook after support: %+v", ep)
	}
}

func TestWebhookFormsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	old := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	for _, path := range []string{"/webhook", "/webhook/enabled", "/webhook/test", "/webhook/rotate-token"} {
		b.post(path, url.Values{"csrf_token": {""}, "url": {"https://evil.example.com/"}, "enabled": {"false"}}).
			expect(http.StatusForbidden)
	}
	if ep, _ := e.store.Webhook(context.Background(), ada.Actor(), ""); !ep.Enabled || ep.URL != old.URL || ep.Token != old.Token {
		t.Fatalf("changed without a token: %+v", ep)
	}
}
