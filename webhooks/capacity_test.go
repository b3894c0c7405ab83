package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// With the default settings one dispatcher keeps 40 attempts in flight
// at once when 40 accounts each have an event for a receiver that is
// slow to answer: a delivery waits for the database twice (its claim and
// its attempt's record), so throughput is the attempts in flight over
// that round trip, and sixteen workers capped it at a few hundred
// deliveries a second on a busy SQLite.
func TestDefaultWorkersKeepManyAccountsInFlight(t *testing.T) {
	const accounts = 40
	store := openShared(t, 1)[0]
	ctx := context.Background()
	slow := newHangingReceiver(t)
	for i := range accounts {
		owner, _ := modelstest.Owner(t, store, fmt.Sprintf("owner%02d@example.com", i))
		if _, _, err := store.SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: slow.URL}); err != nil {
			t.Fatal(err)
		}
		sev := "sev_3"
		if _, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "s", Description: "d",
			Type: models.TicketIncident, Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	startDispatcher(t, ctx, store, webhooks.Config{})
	t.Cleanup(slow.stop) // before the dispatcher stops: cleanups run last first
	slow.waitHolding(t, accounts)
}

// Under a stream of events the dispatcher runs once per commit, but asks
// when the next delivery falls due (NextWebhookDue, whose second query
// orders the leases) at most once per 50 ms: asking each time cost a
// tenth of a busy server's CPU. Every event is still delivered.
func TestStreamOfEventsDoesNotAskForTheNextDueEachTime(t *testing.T) {
	const events = 300
	store := openShared(t, 1)[0]
	ctx := context.Background()
	var asked atomic.Int64
	if err := store.DB().Callback().Query().After("gorm:query").Register("test:count_next_due", func(db *gorm.DB) {
		if strings.Contains(db.Statement.SQL.String(), "ORDER BY lease_until") {
			asked.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, status(http.StatusNoContent))
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	if _, _, err := store.SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: rc.URL}); err != nil {
		t.Fatal(err)
	}
	recorded := make(chan struct{}, events)
	startDispatcher(t, ctx, store, webhooks.Config{
		Recorded: func(models.DeliveryJob, models.WebhookAttempt, models.DeliveryDecision) { recorded <- struct{}{} }})

	start := time.Now()
	sev := "sev_3"
	for range events {
		if _, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "s", Description: "d",
			Type: models.TicketIncident, Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	timeout := time.After(2 * deadline)
	for i := range events {
		select {
		case <-recorded:
		case <-timeout:
			t.Fatalf("only %d of %d deliveries recorded", i, events)
		}
	}
	took := time.Since(start)
	// One answer per 50 ms, and one more for the start and the end.
	limit := int64(took/(50*time.Millisecond)) + 2
	t.Logf("on %s: %d events in %v, the next due asked %d times", modelstest.Backend(), events, took, asked.Load())
	if n := asked.Load(); n > limit {
		t.Fatalf("the next due was asked %d times in %v, want at most %d", n, took, limit)
	}
}
