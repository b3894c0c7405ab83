package models_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A claim looks at the due endpoints once. On SQLite its transaction
// holds the one write lock from BEGIN, so nothing can change after the
// look; on PostgreSQL the look comes after the endpoints' row locks.
func TestClaimLooksAtDueEndpointsOnce(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://a.example.com/")
	f.webhook(f.other, "https://b.example.com/")
	f.incident(f.owner, "one")
	f.incident(f.other, "two")
	var looks atomic.Int64
	if err := f.store.DB().Callback().Query().After("gorm:query").Register("test:count_due_looks", func(db *gorm.DB) {
		if strings.Contains(db.Statement.SQL.String(), "AS firsts") {
			looks.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	jobs, err := f.store.ClaimWebhookDeliveries(f.ctx, "one", 10, time.Minute)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("claimed %d (%v), want both deliveries", len(jobs), err)
	}
	if n := looks.Load(); n != 1 {
		t.Fatalf("on %s the claim looked at the due endpoints %d times, want once", modelstest.Backend(), n)
	}
}

// Eight claimers on four stores over one database (four processes'
// dispatchers), claiming in batches at once, lease each due delivery to
// exactly one of them, none lost, and never more than an endpoint's cap
// at once.
func TestManyConcurrentBatchClaimsLeaseEachDeliveryOnce(t *testing.T) {
	const accounts, perAccount = 6, 20
	dsn := modelstest.DSN(t)
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true
	stores := make([]*models.Store, 4)
	for i := range stores {
		stores[i] = modelstest.OpenAt(t, dsn, models.WithConfig(cfg))
	}
	ctx := t.Context()
	sev := "sev_3"
	for a := range accounts {
		owner, _ := modelstest.Owner(t, stores[0], fmt.Sprintf("claim%d@example.com", a))
		if _, _, err := stores[0].SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: fmt.Sprintf("https://%d.example.com/", a)}); err != nil {
			t.Fatal(err)
		}
		for range perAccount {
			if _, err := stores[0].CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "s", Description: "d",
				Type: models.TicketIncident, Severity: &sev}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var mu sync.Mutex
	owners := map[string]string{}
	perEndpoint := map[string]int{}
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			owner := fmt.Sprint("claimer-", c)
			jobs, err := stores[c%len(stores)].ClaimWebhookDeliveries(ctx, owner, 64, time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, j := range jobs {
				if prev, dup := owners[j.DeliveryID]; dup {
					t.Errorf("delivery %s leased to %s and %s", j.DeliveryID, prev, owner)
				}
				owners[j.DeliveryID] = owner
				perEndpoint[j.EndpointID]++
			}
		})
	}
	wg.Wait()
	for e, n := range perEndpoint {
		if n > models.DefaultWebhookEndpointConcurrency {
			t.Errorf("endpoint %s has %d in flight, over its cap of %d", e, n, models.DefaultWebhookEndpointConcurrency)
		}
	}
	if len(owners) != accounts*models.DefaultWebhookEndpointConcurrency {
		t.Errorf("%d leased, want every endpoint's cap: %d", len(owners), accounts*models.DefaultWebhookEndpointConcurrency)
	}
	// Nothing lost: once the leases are given back, every delivery is
	// still pending and claimable.
	for c := range 8 {
		if err := stores[0].ReleaseWebhookDeliveries(ctx, fmt.Sprint("claimer-", c)); err != nil {
			t.Fatal(err)
		}
	}
	var pending int64
	if err := stores[0].DB().Model(&models.WebhookDelivery{}).Where("status = ? AND lease_until IS NULL", models.DeliveryPending).
		Count(&pending).Error; err != nil || pending != accounts*perAccount {
		t.Fatalf("%d deliveries pending and free after the release (%v), want %d", pending, err, accounts*perAccount)
	}
}
