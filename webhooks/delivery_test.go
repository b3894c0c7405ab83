package webhooks_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"cloudplane/models"
	"cloudplane/webhooks"
)

// The three ticket events arrive with the exact envelope and headers, and
// the signature verifies with the endpoint's secret using the Standard
// Webhooks reference library.
func TestTicketEventsEnvelopesAndHeaders(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusNoContent))
	endpoint, token := h.webhook(rc.URL + "/hooks")
	verifier, err := standardwebhooks.NewWebhook(endpoint.Secret)
	if err != nil {
		t.Fatal(err)
	}
	h.start()

	ip := "203.0.113.9"
	sev := "sev_1"
	tk, err := h.store.CreateTicket(h.ctx, h.owner, models.CreateTicketInput{Subject: "GPU slow", Description: "Since noon.",
		Type: models.TicketIncident, Severity: &sev, IP: &ip})
	if err != nil {
		t.Fatal(err)
	}
	created := h.clock.Now()
	steps := []struct {
		change func()
		typ    string
		status string
	}{
		{func() {}, models.EventTicketCreated, "new"},
		{func() { h.move(tk.ID, h.support, "pending") }, models.EventTicketStatusChanged, "pending"},
		{func() { h.move(tk.ID, h.owner, "solved") }, models.EventTicketResolved, "solved"},
		{func() { h.move(tk.ID, h.support, "closed") }, models.EventTicketResolved, "closed"},
	}
	for i, step := range steps {
		if i > 0 {
			h.clock.Advance(time.Minute)
		}
		step.change()
		got := rc.next(t)
		now := h.clock.Now()
		id := got.header.Get("webhook-id")
		wantHeaders := map[string]string{
			"Authorization":     "Bearer " + token,
			"Content-Type":      "application/json",
			"User-Agent":        "cloudplane-webhooks/test",
			"Webhook-Timestamp": strconv.FormatInt(now.Unix(), 10),
		}
		for name, want := range wantHeaders {
			if v := got.header.Get(name); v != want {
				t.Errorf("step %d: %s = %q, want %q", i, name, v, want)
			}
		}
		if err := verifier.VerifyIgnoringTimestamp(got.body, got.header); err != nil {
			t.Errorf("step %d: signature: %v", i, err)
		}
		updated := now
		if i == 0 {
			updated = created
		}
		want := map[string]any{
			"id": id, "object": "event", "type": step.typ, "created": float64(updated.Unix()),
			"api_version": models.WebhookAPIVersion,
			"data": map[string]any{
				"object": "ticket", "id": tk.ID, "subject": "GPU slow", "description": "Since noon.",
				"request_type": "incident", "severity": "sev_1", "status": step.status,
				"created_at": created.Format(time.RFC3339), "updated_at": updated.Format(time.RFC3339),
				"instance_ip": ip, "instance_id": nil, "cluster_id": nil, "source": "dashboard",
			},
		}
		var body map[string]any
		if err := json.Unmarshal(got.body, &body); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("step %d: body\n%s\nwant\n%v", i, got.body, want)
		}
		r := h.next()
		if !r.attempt.Succeeded || r.attempt.StatusCode != 204 || r.attempt.RemoteAddr != strings.TrimPrefix(rc.URL, "http://") {
			t.Errorf("step %d: attempt %+v", i, r.attempt)
		}
		if auth := r.attempt.RequestHeaders["Authorization"]; strings.Contains(auth, token) || !strings.HasPrefix(auth, "Bearer cpwh_") {
			t.Errorf("step %d: the log keeps the token unmasked: %q", i, auth)
		}
	}
}

func (h *harness) move(id string, actor models.Actor, status string) {
	h.t.Helper()
	if _, err := h.store.UpdateTicket(h.ctx, actor, id, models.UpdateTicketInput{Status: &status}); err != nil {
		h.t.Fatal(err)
	}
}

// A receiver that fails twice then succeeds gets the same event id each
// time, on the schedule (computed on the injected clock), and every
// attempt is in the log.
func TestFailingReceiverIsRetriedUntilDelivered(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	answers := []int{500, 502, 200}
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("X-Try", strconv.Itoa(n))
		w.WriteHeader(answers[n-1])
		_, _ = w.Write([]byte("try " + strconv.Itoa(n)))
	})
	endpoint, _ := h.webhook(rc.URL)
	verifier, _ := standardwebhooks.NewWebhook(endpoint.Secret)
	h.start()
	h.ticket("flaky")

	var ids []string
	for i, wait := range []time.Duration{5 * time.Second, 5 * time.Minute, 0} {
		got := rc.next(t)
		ids = append(ids, got.header.Get("webhook-id"))
		if err := verifier.VerifyIgnoringTimestamp(got.body, got.header); err != nil {
			t.Errorf("try %d: %v", i+1, err)
		}
		r := h.next()
		if wait == 0 {
			if !r.attempt.Succeeded || r.dec.RetryAt != nil {
				t.Fatalf("last try: %+v %+v", r.attempt, r.dec)
			}
			break
		}
		if r.attempt.Succeeded || r.attempt.ErrorKind != webhooks.KindHTTP || r.dec.RetryAt == nil ||
			!r.dec.RetryAt.Equal(h.clock.Now().Add(wait)) {
			t.Fatalf("try %d: attempt %+v decision %v, want a retry in %v", i+1, r.attempt, r.dec.RetryAt, wait)
		}
		h.clock.Advance(wait)
		h.disp.Wake()
	}
	if ids[0] == "" || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Fatalf("event ids differ between retries: %v", ids)
	}
	d := h.delivery(h.next0DeliveryID())
	if d.Status != models.DeliverySucceeded || d.Attempts != 3 || len(d.AttemptLog) != 3 {
		t.Fatalf("delivery %+v", d.WebhookDelivery)
	}
	for i, a := range d.AttemptLog {
		if a.Number != i+1 || a.StatusCode != answers[i] || string(a.ResponseBody) != "try "+strconv.Itoa(i+1) ||
			a.ResponseHeaders["X-Try"][0] != strconv.Itoa(i+1) || a.RequestHeaders["Webhook-Id"] != ids[0] {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
}

// next0DeliveryID is the id of the only delivery in the store.
func (h *harness) next0DeliveryID() string {
	h.t.Helper()
	page, err := h.store.WebhookDeliveries(h.ctx, h.support, models.DeliveryFilter{})
	if err != nil || len(page.Deliveries) != 1 {
		h.t.Fatalf("deliveries %+v, %v", page, err)
	}
	return page.Deliveries[0].ID
}

func TestHangingReceiverTimesOut(t *testing.T) {
	h := newHarness(t, webhooks.Config{Timeout: 100 * time.Millisecond})
	rc := newReceiver(t, func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() })
	h.webhook(rc.URL)
	h.start()
	h.ticket("hang")
	rc.next(t)
	r := h.next()
	if r.attempt.Succeeded || r.attempt.ErrorKind != webhooks.KindTimeout || r.attempt.StatusCode != 0 || r.dec.RetryAt == nil {
		t.Fatalf("attempt %+v decision %+v", r.attempt, r.dec)
	}
	if r.attempt.Duration < 100*time.Millisecond || r.attempt.Duration > 5*time.Second {
		t.Fatalf("duration %v", r.attempt.Duration)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	target := newReceiver(t, status(200))
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	h.webhook(rc.URL)
	h.start()
	h.ticket("redirect")
	r := h.next()
	if r.attempt.Succeeded || r.attempt.ErrorKind != webhooks.KindRedirect || r.attempt.StatusCode != 307 || r.dec.RetryAt == nil {
		t.Fatalf("attempt %+v", r.attempt)
	}
	if !strings.Contains(r.attempt.Error, target.URL) {
		t.Fatalf("error %q does not say where it redirected", r.attempt.Error)
	}
	if target.count.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

// 410 Gone disables the endpoint, records why and fails what was pending;
// later events make no deliveries until the owner enables it again.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusGone))
	h.webhook(rc.URL)
	h.start()
	h.ticket("gone")
	r := h.next()
	if r.dec.DisableEndpoint == "" || r.dec.RetryAt != nil {
		t.Fatalf("decision %+v", r.dec)
	}
	e, err := h.store.Webhook(h.ctx, h.owner, "")
	if err != nil || e.Enabled || !strings.Contains(e.DisabledReason, "410") || e.DisabledAt == nil {
		t.Fatalf("endpoint %+v, %v", e, err)
	}
	d := h.delivery(r.job.DeliveryID)
	if d.Status != models.DeliveryFailed {
		t.Fatalf("delivery %s", d.Status)
	}
	var audits int64
	h.store.DB().Model(&models.AuditEvent{}).Where("resource_name = ? AND actor_lrn = ?", "webhook", "lrn:cloud:service:webhooks").Count(&audits)
	if audits != 1 {
		t.Fatalf("%d audit events by the dispatcher", audits)
	}
	h.ticket("after")
	page, _ := h.store.WebhookDeliveries(h.ctx, h.owner, models.DeliveryFilter{})
	if len(page.Deliveries) != 1 {
		t.Fatalf("%d deliveries; a disabled endpoint must get none", len(page.Deliveries))
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	later := h.clock.Now().Add(90 * time.Minute)
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Retry-After", later.Format(http.TimeFormat))
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	h.webhook(rc.URL)
	h.start()
	h.ticket("busy")
	r := h.next()
	if want := h.clock.Now().Add(120 * time.Second); r.dec.RetryAt == nil || !r.dec.RetryAt.Equal(want) {
		t.Fatalf("retry at %v, want %v (Retry-After, not the schedule's 5s)", r.dec.RetryAt, want)
	}
	h.clock.Advance(120 * time.Second)
	h.disp.Wake()
	r = h.next()
	if r.dec.RetryAt == nil || !r.dec.RetryAt.Equal(later) {
		t.Fatalf("retry at %v, want the Retry-After date %v", r.dec.RetryAt, later)
	}
}

// After the last attempt the delivery has failed; redelivering it by hand
// queues it again with a fresh schedule, and records who asked.
func TestFailedDeliveryCanBeRedeliveredByHand(t *testing.T) {
	h := newHarness(t, webhooks.Config{Schedule: []time.Duration{time.Second}})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n <= 2 {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(200)
	})
	h.webhook(rc.URL)
	h.start()
	h.ticket("down")
	h.next()
	h.clock.Advance(time.Second)
	h.disp.Wake()
	r := h.next()
	if r.dec.RetryAt != nil || h.delivery(r.job.DeliveryID).Status != models.DeliveryFailed {
		t.Fatalf("after the last attempt: %+v", r.dec)
	}
	if _, err := h.store.RedeliverWebhook(h.ctx, h.owner, r.job.DeliveryID); err != nil {
		t.Fatal(err)
	}
	r = h.next()
	d := h.delivery(r.job.DeliveryID)
	if !r.attempt.Succeeded || d.Status != models.DeliverySucceeded || d.Attempts != 3 {
		t.Fatalf("redelivered: %+v", d.WebhookDelivery)
	}
	var audit models.AuditEvent
	if err := h.store.DB().Where("resource_name = ? AND action = ?", "webhook_delivery", "redelivered").Take(&audit).Error; err != nil {
		t.Fatal(err)
	}
	if *audit.ActorLRN != "lrn:cloud:user:"+h.owner.UserID {
		t.Fatalf("redelivery recorded as %s", *audit.ActorLRN)
	}
}
