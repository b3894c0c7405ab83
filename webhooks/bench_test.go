package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// benchSetup is a store on the real clock with an owner whose webhook
// points at a local receiver that reports the ticket id of each event.
func benchSetup(b *testing.B) (*models.Store, models.Actor, chan arrival) {
	b.Helper()
	store := openShared(b, 1)[0]
	arrivals := make(chan arrival, 1<<16)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		var env struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&env)
		w.WriteHeader(http.StatusNoContent)
		arrivals <- arrival{ticketID: env.Data.ID, at: at}
	}))
	b.Cleanup(rc.Close)
	owner, _ := modelstest.Owner(b, store, "bench@example.com")
	if _, _, err := store.SetWebhook(context.Background(), owner.Actor(), models.SetWebhookInput{URL: rc.URL}); err != nil {
		b.Fatal(err)
	}
	return store, owner.Actor(), arrivals
}

type arrival struct {
	ticketID string
	at       time.Time
}

// runDispatcher runs a dispatcher; committed, when set, is called at each
// commit of an event, just before the dispatcher is woken.
func runDispatcher(b *testing.B, store *models.Store, committed func()) {
	d := webhooks.New(store, webhooks.Config{AllowPrivate: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	store.OnOutbox(func() {
		if committed != nil {
			committed()
		}
		d.Wake()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = d.Run(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
}

func benchTicket(b *testing.B, store *models.Store, actor models.Actor) string {
	sev := "sev_3"
	tk, err := store.CreateTicket(context.Background(), actor, models.CreateTicketInput{Subject: "bench", Description: "d",
		Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		b.Fatal(err)
	}
	return tk.ID
}

// BenchmarkDeliveryThroughput: b.N events are queued while no dispatcher
// runs, then one dispatcher (default 64 workers) delivers them all to a
// local receiver; deliveries/s is the figure.
func BenchmarkDeliveryThroughput(b *testing.B) {
	store, actor, arrivals := benchSetup(b)
	for i := 0; i < b.N; i++ {
		benchTicket(b, store, actor)
	}
	b.ResetTimer()
	start := time.Now()
	runDispatcher(b, store, nil)
	for i := 0; i < b.N; i++ {
		<-arrivals
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkCommitToFirstAttempt: with the dispatcher running, tickets are
// created one after another; the figure is the time from the commit (the
// store's post-commit hook) to the receiver getting the event.
func BenchmarkCommitToFirstAttempt(b *testing.B) {
	store, actor, arrivals := benchSetup(b)
	commits := make(chan time.Time, 1)
	runDispatcher(b, store, func() { commits <- time.Now() })
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := benchTicket(b, store, actor)
		committed := <-commits
		a := <-arrivals
		if a.ticketID != id {
			b.Fatalf("got the event of %s, want %s", a.ticketID, id)
		}
		latencies = append(latencies, a.at.Sub(committed))
	}
	b.StopTimer()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
