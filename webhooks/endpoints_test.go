package webhooks_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"cloudplane/models"
	"cloudplane/webhooks"
)

// endpoint adds an endpoint for url receiving types (nil: every type).
func (h *harness) endpoint(url string, types ...string) *models.WebhookEndpoint {
	h.t.Helper()
	e, _, err := h.store.CreateWebhookEndpoint(h.ctx, h.owner, models.SetWebhookInput{URL: url, EventTypes: types})
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

func verifier(t *testing.T, secret string) *standardwebhooks.Webhook {
	t.Helper()
	v, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func eventType(t *testing.T, body []byte) string {
	t.Helper()
	var ev struct{ Type string }
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Type
}

// An event goes to every enabled endpoint subscribed to its type, each
// with its own delivery, token and signature; an endpoint that does not
// receive the type, or is disabled, gets nothing.
func TestEventsFanOutToSubscribedEndpoints(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	all := newReceiver(t, status(http.StatusOK))
	resolvedOnly := newReceiver(t, status(http.StatusOK))
	off := newReceiver(t, status(http.StatusOK))
	eAll := h.endpoint(all.URL)
	eResolved := h.endpoint(resolvedOnly.URL, models.EventTicketResolved)
	eOff := h.endpoint(off.URL)
	if _, err := h.store.SetWebhookEnabled(h.ctx, h.owner, eOff.ID, false); err != nil {
		t.Fatal(err)
	}
	h.start()
	tk := h.ticket("fan out")
	h.move(tk.ID, h.support, "solved")
	for range 3 {
		if r := h.next(); !r.attempt.Succeeded {
			t.Fatalf("attempt %+v", r.attempt)
		}
	}
	got := []received{all.next(t), all.next(t)}
	types := []string{eventType(t, got[0].body), eventType(t, got[1].body)}
	if !(types[0] == models.EventTicketCreated && types[1] == models.EventTicketResolved ||
		types[1] == models.EventTicketCreated && types[0] == models.EventTicketResolved) {
		t.Fatalf("the all-events endpoint got %v", types)
	}
	r := resolvedOnly.next(t)
	if typ := eventType(t, r.body); typ != models.EventTicketResolved {
		t.Fatalf("the resolved-only endpoint got %s", typ)
	}
	if err := verifier(t, eResolved.Secret).VerifyIgnoringTimestamp(r.body, r.header); err != nil {
		t.Fatalf("its own secret: %v", err)
	}
	if err := verifier(t, eAll.Secret).VerifyIgnoringTimestamp(r.body, r.header); err == nil {
		t.Fatal("another endpoint's secret verified the signature")
	}
	if r.header.Get("Authorization") != "Bearer "+eResolved.Token {
		t.Fatal("the delivery carries another endpoint's token")
	}
	for endpoint, want := range map[string]int{eAll.ID: 2, eResolved.ID: 1, eOff.ID: 0} {
		page, err := h.store.WebhookDeliveries(h.ctx, h.owner, models.DeliveryFilter{EndpointID: endpoint})
		if err != nil || len(page.Deliveries) != want {
			t.Fatalf("endpoint %s: %d deliveries, want %d (%v)", endpoint, len(page.Deliveries), want, err)
		}
	}
	if n := off.count.Load(); n != 0 {
		t.Fatalf("the disabled endpoint got %d requests", n)
	}
}

// During a rotation's grace period each delivery carries two signatures,
// and a receiver holding either secret verifies it; after it, only the
// new secret signs.
func TestRotatedSecretSignsDuringGracePeriod(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusOK))
	old, _ := h.webhook(rc.URL)
	h.start()
	rotated, err := h.store.RotateWebhookSecret(h.ctx, h.owner, old.ID)
	if err != nil || rotated.Secret == old.Secret || rotated.PreviousSecret != old.Secret ||
		!rotated.PreviousSecretUntil.Equal(h.clock.Now().Add(models.DefaultWebhookSecretGrace)) {
		t.Fatalf("rotated %+v, %v", rotated, err)
	}
	h.ticket("during")
	got := rc.next(t)
	if sigs := strings.Fields(got.header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("signatures %q, want two", sigs)
	}
	for name, secret := range map[string]string{"old": old.Secret, "new": rotated.Secret} {
		if err := verifier(t, secret).VerifyIgnoringTimestamp(got.body, got.header); err != nil {
			t.Errorf("during the grace period the %s secret does not verify: %v", name, err)
		}
	}
	h.next()

	h.clock.Advance(models.DefaultWebhookSecretGrace)
	h.ticket("after")
	got = rc.next(t)
	if sigs := strings.Fields(got.header.Get("webhook-signature")); len(sigs) != 1 {
		t.Fatalf("signatures %q, want one", sigs)
	}
	if err := verifier(t, rotated.Secret).VerifyIgnoringTimestamp(got.body, got.header); err != nil {
		t.Errorf("after the grace period the new secret does not verify: %v", err)
	}
	if err := verifier(t, old.Secret).VerifyIgnoringTimestamp(got.body, got.header); err == nil {
		t.Error("after the grace period the old secret still verifies")
	}
	h.next()
	if n := modelsAudit(t, h, "secret_rotated"); n != 1 {
		t.Fatalf("%d secret_rotated audit events", n)
	}
}

func modelsAudit(t *testing.T, h *harness, action string) int64 {
	t.Helper()
	var n int64
	if err := h.store.DB().Model(&models.AuditEvent{}).Where("resource_name = ? AND action = ?", "webhook", action).
		Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// A failed answer with Webhook-Stop-Retrying: true ends the delivery at
// once, logged as stopped; "false", or the header on a success, changes
// nothing.
func TestReceiverAsksToStopRetrying(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	stop := atomic.Value{}
	stop.Store("true")
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set(webhooks.StopRetryingHeader, stop.Load().(string))
		w.WriteHeader(http.StatusUnprocessableEntity)
	})
	h.webhook(rc.URL)
	h.start()
	h.ticket("refused for good")
	r := h.next()
	if !r.dec.Stopped || r.dec.RetryAt != nil || r.attempt.ErrorKind != webhooks.KindStopped ||
		!strings.Contains(r.attempt.Error, "asked not to retry") || r.job.Tries != 0 {
		t.Fatalf("attempt %+v decision %+v", r.attempt, r.dec)
	}
	d := h.delivery(r.job.DeliveryID)
	if d.Status != models.DeliveryFailed || d.Attempts != 1 || !strings.Contains(d.LastError, "HTTP 422") ||
		d.AttemptLog[0].ErrorKind != webhooks.KindStopped {
		t.Fatalf("delivery %+v", d.WebhookDelivery)
	}

	stop.Store("false")
	h.ticket("refused for now")
	if r := h.next(); r.dec.Stopped || r.dec.RetryAt == nil || r.attempt.ErrorKind != webhooks.KindHTTP {
		t.Fatalf("with the header false: attempt %+v decision %+v", r.attempt, r.dec)
	}
}

// An endpoint whose attempts have all failed for WebhookFailingLimit is
// disabled, with an audit event and its reason; a success in between
// starts the count again, and the other endpoints are left alone.
func TestEndpointFailingForDaysIsDisabled(t *testing.T) {
	h := newHarness(t, webhooks.Config{Schedule: []time.Duration{}}) // one attempt per event
	var code atomic.Int32
	code.Store(http.StatusInternalServerError)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(int(code.Load())) })
	healthy := newReceiver(t, status(http.StatusOK))
	e, _ := h.webhook(rc.URL)
	other := h.endpoint(healthy.URL)
	h.start()
	step := func(advance time.Duration, answer int) {
		t.Helper()
		h.clock.Advance(advance)
		code.Store(int32(answer))
		h.ticket("t")
		h.next()
		h.next()
	}
	step(0, 500)              // failing since day 0
	step(3*24*time.Hour, 200) // a success on day 3
	step(time.Minute, 500)    // failing again since day 3
	step(4*24*time.Hour, 500) // day 7: 4 days of failures
	if got, _ := h.store.WebhookEndpoint(h.ctx, h.owner, e.ID); !got.Enabled {
		t.Fatalf("disabled after 4 days of failures: %+v", got)
	}
	step(24*time.Hour, 500) // day 8: 5 days of failures
	got, _ := h.store.WebhookEndpoint(h.ctx, h.owner, e.ID)
	if got.Enabled || !strings.Contains(got.DisabledReason, "failed for 5 days") || got.DisabledAt == nil {
		t.Fatalf("after 5 days of failures: %+v", got)
	}
	if o, _ := h.store.WebhookEndpoint(h.ctx, h.owner, other.ID); !o.Enabled {
		t.Fatal("the healthy endpoint was disabled too")
	}
	var ev models.AuditEvent
	if err := h.store.DB().Where("resource_name = ? AND action = ?", "webhook", "disabled").Take(&ev).Error; err != nil {
		t.Fatal(err)
	}
	if ev.ActorLRN == nil || *ev.ActorLRN == "lrn:cloud:user:"+h.owner.UserID || ev.AdditionalDetails.Map()["reason"] != got.DisabledReason {
		t.Fatalf("audit event %+v", ev)
	}
	// Enabling it again starts the count afresh.
	if _, err := h.store.SetWebhookEnabled(h.ctx, h.owner, e.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.store.WebhookEndpoint(h.ctx, h.owner, e.ID); got.FailingSince != nil {
		t.Fatalf("failing since %v after enabling", got.FailingSince)
	}
}

// An endpoint whose retries ran out gets no attempt to notice the limit;
// the retention job's sweep disables it once its failures are 5 days old,
// and leaves alone the endpoints failing for less or not at all.
func TestSweepDisablesEndpointsFailingWithoutNewAttempts(t *testing.T) {
	h := newHarness(t, webhooks.Config{Schedule: []time.Duration{}}) // one attempt per event
	failing := newReceiver(t, status(http.StatusInternalServerError))
	healthy := newReceiver(t, status(http.StatusOK))
	e, _ := h.webhook(failing.URL)
	other := h.endpoint(healthy.URL)
	h.start()
	h.ticket("t")
	h.next()
	h.next()

	h.clock.Advance(models.WebhookFailingLimit - time.Minute)
	if n, err := h.store.DisableFailingWebhookEndpoints(h.ctx); err != nil || n != 0 {
		t.Fatalf("before the limit: disabled %d, %v", n, err)
	}
	h.clock.Advance(time.Minute)
	if n, err := h.store.DisableFailingWebhookEndpoints(h.ctx); err != nil || n != 1 {
		t.Fatalf("at the limit: disabled %d, %v", n, err)
	}
	got, _ := h.store.WebhookEndpoint(h.ctx, h.owner, e.ID)
	if got.Enabled || !strings.Contains(got.DisabledReason, "failed for 5 days") {
		t.Fatalf("after the sweep: %+v", got)
	}
	if o, _ := h.store.WebhookEndpoint(h.ctx, h.owner, other.ID); !o.Enabled {
		t.Fatal("the healthy endpoint was disabled too")
	}
	if n, err := h.store.DisableFailingWebhookEndpoints(h.ctx); err != nil || n != 0 {
		t.Fatalf("a second sweep disabled %d, %v", n, err)
	}
	var events int64
	h.store.DB().Model(&models.AuditEvent{}).Where("resource_name = ? AND action = ?", "webhook", "disabled").Count(&events)
	if events != 1 {
		t.Fatalf("%d disabled events, want 1", events)
	}
}
