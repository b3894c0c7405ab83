package models_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// claimed counts jobs per endpoint.
func claimed(jobs []models.DeliveryJob) map[string]int {
	n := map[string]int{}
	for _, j := range jobs {
		n[j.EndpointID]++
	}
	return n
}

// Endpoints take turns: a burst to one does not come before another's
// single event, and no endpoint gets more than its cap in flight until a
// lease ends.
func TestClaimTakesEndpointsInTurnWithinTheirCap(t *testing.T) {
	f := newTicketFixture(t)
	a := f.webhook(f.owner, "https://a.example.com/")
	b := f.webhook(f.other, "https://b.example.com/")
	for i := range 6 {
		f.incident(f.owner, fmt.Sprint("burst ", i))
	}
	f.clock.Advance(time.Second)
	f.incident(f.other, "single")

	first, err := f.store.ClaimWebhookDeliveries(f.ctx, "one", 2, time.Minute)
	if n := claimed(first); err != nil || n[a.ID] != 1 || n[b.ID] != 1 {
		t.Fatalf("a claim of 2 took %v (%v), want one of each endpoint", n, err)
	}
	rest, _ := f.store.ClaimWebhookDeliveries(f.ctx, "two", 10, time.Minute)
	if n := claimed(rest); n[a.ID] != models.DefaultWebhookEndpointConcurrency-1 || n[b.ID] != 0 {
		t.Fatalf("the next claim took %v, want A up to its cap", n)
	}
	if more, _ := f.store.ClaimWebhookDeliveries(f.ctx, "three", 10, time.Minute); len(more) != 0 {
		t.Fatalf("claimed %d past the cap", len(more))
	}
	due, err := f.store.NextWebhookDue(f.ctx)
	if err != nil || due == nil || !due.After(f.clock.Now()) {
		t.Fatalf("next due %v (%v): A's waiting deliveries cannot be claimed before a lease ends", due, err)
	}
	f.clock.Advance(time.Minute)
	if again, _ := f.store.ClaimWebhookDeliveries(f.ctx, "four", 10, time.Minute); claimed(again)[a.ID] != models.DefaultWebhookEndpointConcurrency {
		t.Fatalf("after the leases ended, claimed %v", claimed(again))
	}
}

// Many dispatchers claiming at once, each through its own connection pool
// (PostgreSQL when configured), never lease more of one endpoint's
// deliveries than its cap, nor one delivery twice.
func TestConcurrentClaimsKeepTheCap(t *testing.T) {
	const claimers = 8
	stores, f := claimerStores(t, claimers)
	owner, _ := modelstest.Owner(t, f.store, "owner@example.com")
	other, _ := modelstest.Owner(t, f.store, "other@example.com")
	f.owner, f.other = owner.Actor(), other.Actor()
	a := f.webhook(f.owner, "https://a.example.com/")
	b := f.webhook(f.other, "https://b.example.com/")
	for i := range 20 {
		f.incident(f.owner, fmt.Sprint("a ", i))
		f.incident(f.other, fmt.Sprint("b ", i))
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, store := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 3 {
				jobs, err := store.ClaimWebhookDeliveries(f.ctx, fmt.Sprint("claimer ", i), 3, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, j := range jobs {
					if seen[j.DeliveryID] != "" {
						t.Errorf("delivery %s claimed twice", j.DeliveryID)
					}
					seen[j.DeliveryID] = j.EndpointID
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	n := map[string]int{}
	for _, endpoint := range seen {
		n[endpoint]++
	}
	if n[a.ID] > models.DefaultWebhookEndpointConcurrency || n[b.ID] > models.DefaultWebhookEndpointConcurrency {
		t.Fatalf("%v claimed by %d dispatchers at once, want at most the cap of %d per endpoint",
			n, claimers, models.DefaultWebhookEndpointConcurrency)
	}
	// A claim that skipped a locked endpoint leaves its slots to the next:
	// one more claim fills both endpoints to their cap, and no further.
	last, err := stores[0].ClaimWebhookDeliveries(f.ctx, "last", 20, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for endpoint, k := range claimed(last) {
		n[endpoint] += k
	}
	if n[a.ID] != models.DefaultWebhookEndpointConcurrency || n[b.ID] != models.DefaultWebhookEndpointConcurrency {
		t.Fatalf("%v in flight after a last claim, want each endpoint at its cap of %d", n, models.DefaultWebhookEndpointConcurrency)
	}
}

// An account's endpoints together have at most the account's share in
// flight, whatever their own caps leave; the workers a claim reserves go
// only to an account with nothing in flight, one each, and a claim that
// leaves due deliveries for lack of share says so.
func TestClaimSharesWorkersBetweenAccounts(t *testing.T) {
	f := newTicketFixture(t)
	for i := range 3 { // 12 endpoint slots, above the account's 8
		if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner,
			models.SetWebhookInput{URL: fmt.Sprintf("https://a%d.example.com/", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		f.incident(f.owner, fmt.Sprint("burst ", i))
	}
	first, err := f.store.ClaimWebhooks(f.ctx, models.WebhookClaim{Owner: "one", Limit: 20, Lease: time.Minute})
	if err != nil || len(first.Jobs) != models.DefaultWebhookAccountConcurrency || !first.HeldBack {
		t.Fatalf("claimed %d (held back %v, %v), want the account's share of %d and the rest held back",
			len(first.Jobs), first.HeldBack, err, models.DefaultWebhookAccountConcurrency)
	}
	b := f.webhook(f.other, "https://b.example.com/")
	for i := range 3 {
		f.incident(f.other, fmt.Sprint("b ", i))
	}
	// The owner is at its share already; of 4 idle workers, 3 reserved, B
	// (nothing in flight) gets one reserved and the one shared.
	second, err := f.store.ClaimWebhooks(f.ctx, models.WebhookClaim{Owner: "two", Limit: 4, Reserve: 3, Lease: time.Minute})
	if n := claimed(second.Jobs); err != nil || len(second.Jobs) != 2 || n[b.ID] != 2 || !second.HeldBack {
		t.Fatalf("claimed %v (held back %v, %v), want 2 of B's, one reserved and one shared", n, second.HeldBack, err)
	}
	// B has deliveries in flight now: the reserve is not for it.
	third, err := f.store.ClaimWebhooks(f.ctx, models.WebhookClaim{Owner: "three", Limit: 3, Reserve: 3, Lease: time.Minute})
	if err != nil || len(third.Jobs) != 0 || !third.HeldBack {
		t.Fatalf("claimed %v (held back %v, %v) from the reserve for accounts already in flight", claimed(third.Jobs), third.HeldBack, err)
	}
	f.clock.Advance(time.Minute) // every lease has ended
	fourth, err := f.store.ClaimWebhooks(f.ctx, models.WebhookClaim{Owner: "four", Limit: 4, Lease: time.Minute})
	if n := claimed(fourth.Jobs); err != nil || n[b.ID] != 2 || len(fourth.Jobs) != 4 {
		t.Fatalf("after the leases ended a claim of 4 took %v (%v), want two of each account's", n, err)
	}
}

// Many dispatchers claiming at once for one account with more endpoint
// slots (3 × 4) than its share (8), each through its own connection pool
// (PostgreSQL when configured), never lease more than the share between
// them; a last claim tops it up to exactly the share.
func TestConcurrentClaimsKeepTheAccountShare(t *testing.T) {
	const claimers = 8
	stores, f := claimerStores(t, claimers)
	owner, _ := modelstest.Owner(t, f.store, "owner@example.com")
	f.owner = owner.Actor()
	for i := range 3 {
		if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner,
			models.SetWebhookInput{URL: fmt.Sprintf("https://a%d.example.com/", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		f.incident(f.owner, fmt.Sprint("a ", i))
	}
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, store := range stores {
		wg.Go(func() {
			<-start
			jobs, err := store.ClaimWebhookDeliveries(f.ctx, fmt.Sprint("claimer ", i), 3, time.Minute)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += len(jobs)
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	if total > models.DefaultWebhookAccountConcurrency {
		t.Fatalf("%d claimers leased %d of one account's deliveries at once, want at most its share of %d",
			claimers, total, models.DefaultWebhookAccountConcurrency)
	}
	last, err := stores[0].ClaimWebhookDeliveries(f.ctx, "last", 20, time.Minute)
	if err != nil || total+len(last) != models.DefaultWebhookAccountConcurrency {
		t.Fatalf("%d in flight after a last claim (%v), want the account's share of %d",
			total+len(last), err, models.DefaultWebhookAccountConcurrency)
	}
}

// claimerStores opens n stores on one database, each with its own
// connection pool as a replica's dispatcher has, on one clock, and a
// ticket fixture on the first.
func claimerStores(t *testing.T, n int) ([]*models.Store, *ticketFixture) {
	t.Helper()
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	clock := modelstest.NewClock()
	dsn := modelstest.DSN(t)
	stores := make([]*models.Store, n)
	for i := range stores {
		stores[i] = modelstest.OpenAt(t, dsn, models.WithConfig(cfg), models.WithClock(clock.Now))
	}
	return stores, &ticketFixture{t: t, ctx: t.Context(), store: stores[0], clock: clock}
}

// A claim finds the due deliveries of every endpoint with pending ones,
// whichever endpoints sit between them in the index: endpoints whose only
// pending delivery is a retry not yet due, endpoints with nothing pending,
// and a disabled endpoint with due deliveries, none of which it takes.
func TestClaimFindsDueEndpointsAmongIdleOnes(t *testing.T) {
	f := newTicketFixture(t)
	const n = 9
	endpoints := make([]*models.WebhookEndpoint, n)
	for i := range endpoints {
		owner, _ := modelstest.Owner(t, f.store, fmt.Sprintf("hooks%d@example.com", i))
		endpoints[i] = f.webhook(owner.Actor(), fmt.Sprintf("https://%d.example.com/", i))
		if i%3 != 2 { // every third endpoint has nothing pending
			f.incident(owner.Actor(), fmt.Sprint("incident ", i))
		}
	}
	db := f.store.DB()
	later := f.clock.Now().Add(time.Hour)
	// Endpoints 0 and 3 wait for a retry; endpoint 4 is disabled.
	for _, i := range []int{0, 3} {
		if err := db.Model(&models.WebhookDelivery{}).Where("endpoint_id = ?", endpoints[i].ID).
			Update("next_attempt_at", later).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Model(&models.WebhookEndpoint{}).Where("id = ?", endpoints[4].ID).Update("enabled", false).Error; err != nil {
		t.Fatal(err)
	}
	jobs, err := f.store.ClaimWebhookDeliveries(f.ctx, "one", 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := claimed(jobs)
	for i, e := range endpoints {
		want := 0
		if i%3 != 2 && i != 0 && i != 3 && i != 4 {
			want = 1
		}
		if got[e.ID] != want {
			t.Errorf("endpoint %d: claimed %d, want %d (all: %v)", i, got[e.ID], want, got)
		}
	}
}

// On PostgreSQL a claim passes over an account any of whose endpoints
// another transaction holds (another replica's claim, or an edit of the
// endpoint): counting its leases then could count a slot being taken.
// The other accounts are claimed meanwhile, and the account itself once
// the lock is gone. SQLite's claims are serialised by its write lock.
func TestClaimPassesOverAnAccountWhoseEndpointIsHeld(t *testing.T) {
	if modelstest.Backend() != "postgres" {
		t.Skip("row locks between claims exist on PostgreSQL only; set " + modelstest.PostgresEnv)
	}
	dsn := modelstest.DSN(t)
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	store := modelstest.OpenAt(t, dsn, models.WithConfig(cfg))
	f := &ticketFixture{t: t, ctx: t.Context(), store: store}
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	other, _ := modelstest.Owner(t, store, "other@example.com")
	f.owner, f.other = owner.Actor(), other.Actor()
	held, _, err := store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://a1.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://a2.example.com/"}); err != nil {
		t.Fatal(err)
	}
	f.webhook(f.other, "https://b.example.com/")
	f.incident(f.owner, "owner's")
	f.incident(f.other, "other's")
	// One of the owner's two endpoints is held: the whole account waits.
	release := modelstest.HoldRowLock(t, dsn, "webhook_endpoints", held.ID)
	jobs, err := store.ClaimWebhookDeliveries(f.ctx, "one", 10, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	claimed := map[string]bool{}
	for _, j := range jobs {
		claimed[j.EndpointID] = true
	}
	if len(jobs) != 1 || claimed[held.ID] {
		t.Fatalf("with an endpoint of the owner's held, claimed %d deliveries (endpoints %v), want the other account's one", len(jobs), claimed)
	}
	release()
	jobs, err = store.ClaimWebhookDeliveries(f.ctx, "one", 10, time.Minute)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("after the lock was released, claimed %d (%v), want the owner's two deliveries", len(jobs), err)
	}
}
