package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// heldBackBacklog is a store where one account's endpoint is at its cap
// (its receiver hangs) with backlog deliveries waiting behind it, half
// of them due, and another account has one delivery due: the hung
// account scenario every claim and NextWebhookDue run in while it lasts.
func heldBackBacklog(b *testing.B, backlog int) (store *models.Store, clock *modelstest.Clock, hungEndpoint string) {
	b.Helper()
	ctx := context.Background()
	cfg := modelstest.Config()
	cfg.WebhookAllowPrivate = true
	clock = modelstest.NewClock()
	store = modelstest.Open(b, models.WithConfig(cfg), models.WithClock(clock.Now))
	owners := benchOwners(b, store, 2)
	var endpoints [2]*models.WebhookEndpoint
	for i, owner := range owners {
		e, _, err := store.SetWebhook(ctx, owner, models.SetWebhookInput{URL: fmt.Sprintf("https://%d.example.com/", i)})
		if err != nil {
			b.Fatal(err)
		}
		endpoints[i] = e
	}
	now := clock.Now()
	hung, leased := endpoints[0], now.Add(time.Hour)
	events := make([]models.WebhookEvent, 0, backlog+1)
	deliveries := make([]models.WebhookDelivery, 0, backlog+1)
	add := func(e *models.WebhookEndpoint, at time.Time, lease *time.Time) {
		ev := models.WebhookEvent{ID: models.NewID(), AccountID: e.AccountID, Type: "ticket.created", Payload: "{}", CreatedAt: now}
		d := models.WebhookDelivery{ID: models.NewID(), EventID: ev.ID, EndpointID: e.ID, Status: models.DeliveryPending,
			NextAttemptAt: at, CreatedAt: now, UpdatedAt: now}
		if lease != nil {
			d.LeaseUntil, d.LeaseOwner = lease, "hung"
		}
		events, deliveries = append(events, ev), append(deliveries, d)
	}
	for i := range backlog {
		switch {
		case i < models.DefaultWebhookEndpointConcurrency:
			add(hung, now.Add(-time.Hour), &leased)
		case i%2 == 0: // retries not due yet
			add(hung, now.Add(time.Hour), nil)
		default:
			add(hung, now.Add(-time.Duration(backlog-i)*time.Millisecond), nil)
		}
	}
	add(endpoints[1], now.Add(-time.Second), nil)
	db := store.DB()
	if err := db.CreateInBatches(events, 500).Error; err != nil {
		b.Fatal(err)
	}
	if err := db.CreateInBatches(deliveries, 500).Error; err != nil {
		b.Fatal(err)
	}
	if err := db.Exec("ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	return store, clock, hung.ID
}

// BenchmarkClaimWithHeldBackBacklog is one dispatcher's claim while a
// hung account's backlog waits for its cap. Its cost should not grow
// with the backlog: compare backlog=3000 with backlog=30000. The other
// account's delivery is leased for no time, so that every claim takes it
// again and picks as well as counts.
func BenchmarkClaimWithHeldBackBacklog(b *testing.B) {
	for _, backlog := range []int{3000, 30000} {
		b.Run(fmt.Sprint("backlog=", backlog), func(b *testing.B) {
			store, _, hung := heldBackBacklog(b, backlog)
			ctx := context.Background()
			for b.Loop() {
				c, err := store.ClaimWebhooks(ctx, models.WebhookClaim{Owner: "bench", Limit: 8, Reserve: 2})
				if err != nil || len(c.Jobs) != 1 || c.Jobs[0].EndpointID == hung {
					b.Fatalf("claimed %v (%v): want the other account's one delivery", c.Jobs, err)
				}
			}
		})
	}
}

// BenchmarkNextWebhookDueWithHeldBackBacklog is the dispatcher's look
// for when to claim next in the same scenario.
func BenchmarkNextWebhookDueWithHeldBackBacklog(b *testing.B) {
	for _, backlog := range []int{3000, 30000} {
		b.Run(fmt.Sprint("backlog=", backlog), func(b *testing.B) {
			store, clock, _ := heldBackBacklog(b, backlog)
			ctx := context.Background()
			for b.Loop() {
				due, err := store.NextWebhookDue(ctx)
				if err != nil || due == nil || due.After(clock.Now()) {
					b.Fatalf("next due %v (%v): want the other account's delivery, due now", due, err)
				}
			}
		})
	}
}

// BenchmarkClaimAmongIdleEndpoints is a claim while one endpoint has a
// delivery due and the others have nothing pending: its cost should not
// grow with the idle endpoints (compare idle=10 with idle=200).
func BenchmarkClaimAmongIdleEndpoints(b *testing.B) {
	for _, idle := range []int{10, 200} {
		b.Run(fmt.Sprint("idle=", idle), func(b *testing.B) {
			ctx := context.Background()
			store, owners := ownersWithEndpoints(b, idle+1)
			if _, err := store.CreateTicket(ctx, owners[idle/2], models.CreateTicketInput{Subject: "Down", Description: "It broke.",
				Type: models.TicketIncident, Severity: ptr("sev_2")}); err != nil {
				b.Fatal(err)
			}
			if err := store.DB().Exec("ANALYZE").Error; err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				// Leased for no time: every claim takes the delivery again.
				c, err := store.ClaimWebhooks(ctx, models.WebhookClaim{Owner: "bench", Limit: 8, Reserve: 2})
				if err != nil || len(c.Jobs) != 1 {
					b.Fatalf("claimed %v (%v): want the one due delivery", c.Jobs, err)
				}
			}
		})
	}
}
