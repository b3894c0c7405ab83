package webhooks_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

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
	d := webhooks.New(store, webhooks.Config{AllowPrivate: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	store.OnOutbox(d.Wake)
	runCtx, cancel := context.WithCancel(ctx)
	var running sync.WaitGroup
	running.Add(1)
	go func() { defer running.Done(); _ = d.Run(runCtx) }()
	t.Cleanup(func() { slow.stop(); cancel(); running.Wait() })
	slow.waitHolding(t, accounts)
}
