package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// hangingReceiver holds every request until released, and counts how many
// it holds at once.
type hangingReceiver struct {
	*receiver
	release        chan struct{}
	holding, peak  atomic.Int32
	reachedHolding chan int32
	stop           func() // releases the held requests, once
}

func newHangingReceiver(t *testing.T) *hangingReceiver {
	hr := &hangingReceiver{release: make(chan struct{}), reachedHolding: make(chan int32, 1000)}
	hr.receiver = newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		n := hr.holding.Add(1)
		defer hr.holding.Add(-1)
		for p := hr.peak.Load(); n > p && !hr.peak.CompareAndSwap(p, n); p = hr.peak.Load() {
		}
		select {
		case hr.reachedHolding <- n:
		default: // nobody is waiting for this count
		}
		select {
		case <-hr.release:
		case <-r.Context().Done():
		}
	})
	// Registered after the server's Close, so it runs before it: Close
	// waits for the held requests.
	var once sync.Once
	hr.stop = func() { once.Do(func() { close(hr.release) }) }
	t.Cleanup(hr.stop)
	return hr
}

// waitHolding waits until the receiver holds n requests at once.
func (hr *hangingReceiver) waitHolding(t *testing.T, n int32) {
	t.Helper()
	timeout := time.After(deadline)
	for hr.holding.Load() < n {
		select {
		case got := <-hr.reachedHolding:
			if got >= n {
				return
			}
		case <-timeout:
			t.Fatalf("the hanging receiver holds %d requests, want %d", hr.holding.Load(), n)
		}
	}
}

// One account's receiver hangs while its events pile up (two bursts of 64)
// and two dispatchers share the database, as two replicas would: the
// hanging endpoint never has more than its cap in flight across both, and
// another account's events are sent within a second of being written,
// by the times the delivery log records.
func TestSlowEndpointDoesNotHoldUpOthers(t *testing.T) {
	const perEndpoint, burst = 4, 64
	stores := openShared(t, 2)
	ctx := context.Background()
	slow := newHangingReceiver(t)
	healthy := newReceiver(t, status(http.StatusNoContent))
	ownerA, _ := modelstest.Owner(t, stores[0], "a@example.com")
	ownerB, _ := modelstest.Owner(t, stores[0], "b@example.com")
	if _, _, err := stores[0].SetWebhook(ctx, ownerA.Actor(), models.SetWebhookInput{URL: slow.URL}); err != nil {
		t.Fatal(err)
	}
	endpointB, _, err := stores[0].SetWebhook(ctx, ownerB.Actor(), models.SetWebhookInput{URL: healthy.URL})
	if err != nil {
		t.Fatal(err)
	}
	recordedB := make(chan models.DeliveryJob, 10)
	for _, store := range stores {
		startDispatcher(t, ctx, store, webhooks.Config{Timeout: time.Minute, Workers: 16,
			PollInterval: 100 * time.Millisecond, ShutdownGrace: time.Second,
			Recorded: func(j models.DeliveryJob, _ models.WebhookAttempt, _ models.DeliveryDecision) {
				if j.EndpointID == endpointB.ID {
					recordedB <- j
				}
			}})
	}
	t.Cleanup(slow.stop) // before the dispatchers stop: cleanups run last first

	sev := "sev_3"
	ticket := func(store *models.Store, owner models.Actor) {
		t.Helper()
		if _, err := store.CreateTicket(ctx, owner, models.CreateTicketInput{Subject: "s", Description: "d",
			Type: models.TicketIncident, Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 2 {
		for i := range burst {
			ticket(stores[i%2], ownerA.Actor())
		}
		slow.waitHolding(t, perEndpoint)
		ticket(stores[round], ownerB.Actor())
		var job models.DeliveryJob
		select {
		case job = <-recordedB:
		case <-time.After(deadline):
			t.Fatalf("round %d: B's event was not delivered while A's receiver hangs", round+1)
		}
		var d models.WebhookDelivery
		var attempts []models.WebhookAttempt
		if err := stores[0].DB().Take(&d, "id = ?", job.DeliveryID).Error; err != nil {
			t.Fatal(err)
		}
		if err := stores[0].DB().Find(&attempts, "delivery_id = ?", job.DeliveryID).Error; err != nil || len(attempts) != 1 || !attempts[0].Succeeded {
			t.Fatalf("B's attempts %+v, %v", attempts, err)
		}
		delay := attempts[0].StartedAt.Sub(d.CreatedAt)
		t.Logf("on %s, round %d: B's event sent %v after it was written", modelstest.Backend(), round+1, delay)
		if delay > time.Second {
			t.Fatalf("round %d: B's event waited %v behind A's hanging receiver", round+1, delay)
		}
	}
	if peak := slow.peak.Load(); peak != perEndpoint {
		t.Fatalf("A's receiver held %d requests at once, want the cap of %d across both dispatchers", peak, perEndpoint)
	}
}
