package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// fastDeliveryBound is the fairness bound: a fast account's events arrive
// within it (p99) however slow other accounts' receivers are. It tells
// "never waited for a slow attempt" (milliseconds on a quiet machine, about
// a second on a loaded CI runner) from "waited for one" (slowTimeout).
const fastDeliveryBound = 2 * time.Second

// slowTimeout is the dispatchers' timeout in these tests: every attempt
// to a hanging receiver holds its worker this long. It is well above
// fastDeliveryBound, so a fast event that has to wait for a slow attempt
// to end breaks the bound.
const slowTimeout = 6 * time.Second

// tenants is several accounts on one database: some whose receivers hang
// on every endpoint, and one whose receiver answers at once, with
// dispatchers running over it as replicas would.
type tenants struct {
	t      *testing.T
	ctx    context.Context
	stores []*models.Store
	slow   []*hangingReceiver // one per slow account, shared by its endpoints
	fast   models.Actor
	// arrived reports when each of the fast account's events reached
	// its receiver, by ticket.
	arrived chan arrival
}

// newTenants opens dispatchers on one database (workers each), gives
// slowAccounts accounts MaxWebhookEndpoints endpoints each at a hanging
// receiver, and one more account an endpoint that answers 204.
func newTenants(t *testing.T, dispatchers, workers, slowAccounts int, configure func(*models.Config)) *tenants {
	t.Helper()
	tn := &tenants{t: t, ctx: context.Background(), stores: openSharedWith(t, dispatchers, configure),
		arrived: make(chan arrival, 1000)}
	for i := range slowAccounts {
		owner, _ := modelstest.Owner(t, tn.stores[0], fmt.Sprintf("slow%d@example.com", i))
		rc := newHangingReceiver(t)
		tn.slow = append(tn.slow, rc)
		for e := range models.MaxWebhookEndpoints {
			in := models.SetWebhookInput{URL: fmt.Sprintf("%s/endpoint-%d", rc.URL, e)}
			if _, _, err := tn.stores[0].CreateWebhookEndpoint(tn.ctx, owner.Actor(), in); err != nil {
				t.Fatal(err)
			}
		}
	}
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		var env struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&env)
		tn.arrived <- arrival{ticketID: env.Data.ID, at: at}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(fast.Close)
	owner, _ := modelstest.Owner(t, tn.stores[0], "fast@example.com")
	tn.fast = owner.Actor()
	if _, _, err := tn.stores[0].SetWebhook(tn.ctx, tn.fast, models.SetWebhookInput{URL: fast.URL}); err != nil {
		t.Fatal(err)
	}
	for _, store := range tn.stores {
		startDispatcher(t, tn.ctx, store, webhooks.Config{Timeout: slowTimeout, Workers: workers,
			Schedule: []time.Duration{time.Minute}, PollInterval: 100 * time.Millisecond, ShutdownGrace: time.Second})
	}
	t.Cleanup(func() { // before the dispatchers stop: cleanups run last first
		for _, rc := range tn.slow {
			rc.stop()
		}
	})
	return tn
}

// openSharedWith is openShared with configure applied to each store's
// configuration.
func openSharedWith(t *testing.T, n int, configure func(*models.Config)) []*models.Store {
	t.Helper()
	dsn := modelstest.DSN(t)
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true
	if configure != nil {
		configure(&cfg)
	}
	stores := make([]*models.Store, n)
	for i := range stores {
		stores[i] = modelstest.OpenAt(t, dsn, models.WithConfig(cfg))
	}
	return stores
}

// ticket opens a ticket as owner through the i-th store.
func (tn *tenants) ticket(i int, owner models.Actor) *models.Ticket {
	tn.t.Helper()
	sev := "sev_3"
	tk, err := tn.stores[i%len(tn.stores)].CreateTicket(tn.ctx, owner, models.CreateTicketInput{Subject: "s",
		Description: "d", Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		tn.t.Fatal(err)
	}
	return tk
}

// loadSlowAccounts queues perAccount tickets on every slow account (one
// delivery per endpoint each) and waits until their receivers hold at
// least busy requests between them.
func (tn *tenants) loadSlowAccounts(perAccount int, busy int32) {
	tn.t.Helper()
	for i := range tn.slow {
		owner, err := tn.stores[0].UserByEmail(tn.ctx, fmt.Sprintf("slow%d@example.com", i))
		if err != nil {
			tn.t.Fatal(err)
		}
		for k := range perAccount {
			tn.ticket(k, owner.Actor())
		}
	}
	testserver.Eventually(tn.t, deadline, func() bool { return tn.slowHolding() >= busy },
		fmt.Sprintf("the slow receivers to hold %d requests", busy))
}

func (tn *tenants) slowHolding() int32 {
	var n int32
	for _, rc := range tn.slow {
		n += rc.holding.Load()
	}
	return n
}

// measureFast opens n tickets on the fast account, one every pace (a
// steady trickle, so that some fall due while the slow accounts' attempts
// hold their workers), and returns how long each took from before its
// write to its arrival. It fails once the whole measure has taken budget.
func (tn *tenants) measureFast(n int, pace, budget time.Duration) []time.Duration {
	tn.t.Helper()
	end := time.After(budget)
	written := map[string]time.Time{}
	var took []time.Duration
	var early []arrival // arrived before CreateTicket returned its id
	settle := func(a arrival) {
		if start, ok := written[a.ticketID]; ok {
			took = append(took, a.at.Sub(start))
			delete(written, a.ticketID)
		} else {
			early = append(early, a)
		}
	}
	tick := time.NewTicker(pace)
	defer tick.Stop()
	for i := 0; i < n || len(took) < n; {
		select {
		case <-tick.C:
			if i < n {
				start := time.Now()
				written[tn.ticket(i, tn.fast).ID] = start
				i++
				for _, a := range slices.Clone(early) {
					early = slices.DeleteFunc(early, func(e arrival) bool { return e == a })
					settle(a)
				}
			}
		case a := <-tn.arrived:
			settle(a)
		case <-end:
			tn.t.Fatalf("after %s only %d of %d fast events had arrived (took %v)", budget, len(took), n, took)
		}
	}
	return took
}

// percentile is the p-th percentile (0 < p <= 1) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p+0.999999) - 1
	return s[max(0, min(rank, len(s)-1))]
}

// Several accounts whose receivers hang on all their endpoints hold far
// more slots (3 × 10 endpoints × 4) than the 16 workers, with 600
// deliveries queued; a fast account's events still arrive within
// fastDeliveryBound, p99 over 100 of them.
func TestSlowAccountsDoNotDelayAFastOne(t *testing.T) {
	const workers, slowAccounts, samples = 16, 3, 100
	tn := newTenants(t, 1, workers, slowAccounts, nil)
	tn.loadSlowAccounts(20, workers/2)
	took := tn.measureFast(samples, 50*time.Millisecond, 30*time.Second)
	p50, p99 := percentile(took, 0.5), percentile(took, 0.99)
	t.Logf("on %s, with %d slow accounts holding %d requests: the fast account's p50 %v, p99 %v, max %v",
		modelstest.Backend(), slowAccounts, tn.slowHolding(), p50, p99, slices.Max(took))
	if p99 > fastDeliveryBound {
		t.Fatalf("the fast account's events took %v at p99 behind the slow accounts, want at most %v", p99, fastDeliveryBound)
	}
}

// Two dispatchers on one database, 16 workers each, and one account whose
// ten endpoints hang (40 slots): across both, the account never has more
// than its share (Config.WebhookAccountConcurrency) in flight, and a fast
// account's events arrive within fastDeliveryBound.
func TestAccountShareHoldsAcrossDispatchers(t *testing.T) {
	const share, workers, samples = 6, 16, 50
	tn := newTenants(t, 2, workers, 1, func(c *models.Config) { c.WebhookAccountConcurrency = share })
	tn.loadSlowAccounts(10, share)
	took := tn.measureFast(samples, 50*time.Millisecond, 30*time.Second)
	p99 := percentile(took, 0.99)
	t.Logf("on %s, two dispatchers: the slow account held at most %d requests; the fast account's p50 %v, p99 %v",
		modelstest.Backend(), tn.slow[0].peak.Load(), percentile(took, 0.5), p99)
	if peak := tn.slow[0].peak.Load(); peak != share {
		t.Fatalf("the slow account had %d deliveries in flight at once across two dispatchers, want its share of %d", peak, share)
	}
	if p99 > fastDeliveryBound {
		t.Fatalf("the fast account's events took %v at p99, want at most %v", p99, fastDeliveryBound)
	}
}
