package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// openShared opens n stores on one database, as n processes would.
func openShared(t testing.TB, n int) []*models.Store {
	t.Helper()
	dsn := modelstest.DSN(t)
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true
	stores := make([]*models.Store, n)
	for i := range stores {
		stores[i] = modelstest.OpenAt(t, dsn, models.WithConfig(cfg))
	}
	return stores
}

// Two dispatchers on one database (PostgreSQL when
// CLOUDPLANE_TEST_POSTGRES_URL is set) deliver each event to a healthy
// receiver exactly once.
func TestTwoDispatchersDeliverEachEventOnce(t *testing.T) {
	const events = 200
	stores := openShared(t, 2)
	var mu sync.Mutex
	seen := map[string]int{}
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
	})
	owner, _ := modelstest.Owner(t, stores[0], "owner@example.com")
	if _, _, err := stores[0].SetWebhook(context.Background(), owner.Actor(), models.SetWebhookInput{URL: rc.URL}); err != nil {
		t.Fatal(err)
	}
	recorded := make(chan string, 2*events)
	byDispatcher := make([]int, len(stores))
	var countMu sync.Mutex
	for i, store := range stores {
		startDispatcher(t, context.Background(), store, webhooks.Config{PollInterval: 20 * time.Millisecond, Workers: 8,
			Recorded: func(j models.DeliveryJob, a models.WebhookAttempt, _ models.DeliveryDecision) {
				countMu.Lock()
				byDispatcher[i]++
				countMu.Unlock()
				recorded <- j.EventID
			}})
	}

	sev := "sev_3"
	for i := 0; i < events; i++ {
		if _, err := stores[i%2].CreateTicket(context.Background(), owner.Actor(), models.CreateTicketInput{
			Subject: "load", Description: "d", Type: models.TicketIncident, Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	timeout := time.After(2 * deadline)
	for i := 0; i < events; i++ {
		select {
		case <-recorded:
		case <-timeout:
			t.Fatalf("only %d of %d deliveries recorded", i, events)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != events {
		t.Fatalf("%d distinct events received, want %d", len(seen), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
	if extra := len(recorded); extra != 0 {
		t.Errorf("%d attempts more than events", extra)
	}
	t.Logf("on %s: dispatcher 1 delivered %d, dispatcher 2 delivered %d", modelstest.Backend(), byDispatcher[0], byDispatcher[1])
}
