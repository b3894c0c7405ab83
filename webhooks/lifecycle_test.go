package webhooks_test

import (
	"net/http"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/webhooks"
)

// On shutdown an attempt that does not finish within the grace period is
// cancelled and its lease released: no attempt is logged and the delivery
// is due at once for the next process.
func TestShutdownReleasesUnfinishedAttempts(t *testing.T) {
	h := newHarness(t, webhooks.Config{ShutdownGrace: 50 * time.Millisecond})
	rc := newReceiver(t, func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() })
	h.webhook(rc.URL)
	h.start()
	h.ticket("in flight at shutdown")
	rc.next(t)
	h.stop()
	select {
	case r := <-h.recorded:
		t.Fatalf("an interrupted attempt was recorded: %+v", r.attempt)
	default:
	}
	d := h.delivery(h.next0DeliveryID())
	if d.Status != models.DeliveryPending || d.LeaseOwner != "" || d.LeaseUntil != nil || d.Attempts != 0 || len(d.AttemptLog) != 0 {
		t.Fatalf("delivery after shutdown: %+v", d.WebhookDelivery)
	}
	if d.NextAttemptAt.After(h.clock.Now()) {
		t.Fatalf("next attempt %v, want due at once", d.NextAttemptAt)
	}
}

// An attempt that finishes within the grace period is recorded as usual.
func TestShutdownLetsAttemptsInFlightFinish(t *testing.T) {
	h := newHarness(t, webhooks.Config{ShutdownGrace: deadline})
	release := make(chan struct{})
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		<-release
		w.WriteHeader(http.StatusOK)
	})
	h.webhook(rc.URL)
	h.start()
	h.ticket("finishes during shutdown")
	rc.next(t)
	stopped := make(chan struct{})
	go func() { h.stop(); close(stopped) }()
	close(release)
	if r := h.next(); !r.attempt.Succeeded {
		t.Fatalf("attempt %+v", r.attempt)
	}
	select {
	case <-stopped:
	case <-time.After(deadline):
		t.Fatal("Run did not return")
	}
	if d := h.delivery(h.next0DeliveryID()); d.Status != models.DeliverySucceeded {
		t.Fatalf("status %s", d.Status)
	}
}

// A delivery claimed by a process that died stays with it until its lease
// expires; then another dispatcher takes it over.
func TestExpiredLeaseIsTakenOver(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusOK))
	h.webhook(rc.URL)
	tk := h.ticket("claimed by a crashed process")
	jobs, err := h.store.ClaimWebhookDeliveries(h.ctx, "crashed", 10, 30*time.Second)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim: %v, %v", jobs, err)
	}
	h.clock.Advance(29 * time.Second)
	if again, _ := h.store.ClaimWebhookDeliveries(h.ctx, "other", 10, 30*time.Second); len(again) != 0 {
		t.Fatal("a leased delivery was claimed twice")
	}
	h.start()
	h.clock.Advance(2 * time.Second)
	h.disp.Wake()
	got := rc.next(t)
	if r := h.next(); !r.attempt.Succeeded || r.job.EventID != got.header.Get("webhook-id") {
		t.Fatalf("attempt %+v", r.attempt)
	}
	page, _ := h.store.WebhookDeliveries(h.ctx, h.owner, models.DeliveryFilter{TicketID: tk.ID})
	if len(page.Deliveries) != 1 || page.Deliveries[0].Status != models.DeliverySucceeded {
		t.Fatalf("deliveries %+v", page.Deliveries)
	}
}
