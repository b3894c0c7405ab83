package models_test

import (
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"gorm.io/gorm"
)

// A claim that waits in SQLite's write queue times its leases from when
// its transaction runs, not from when it asked: otherwise the wait is
// taken from the attempt's time and the lease may end while the attempt
// is still being recorded, and another dispatcher sends it again.
func TestClaimLeaseRunsFromItsTransaction(t *testing.T) {
	f := newTicketFixture(t)
	if _, ok := f.store.Database().WriterStats(); !ok {
		t.Skip("PostgreSQL has no write queue: a claim's transaction starts when it asks")
	}
	e := f.webhook(f.owner, "https://a.example.com/")
	f.incident(f.owner, "one")

	held, release := make(chan struct{}), make(chan struct{})
	blocker := make(chan error, 1)
	go func() {
		blocker <- f.store.Write(f.ctx, func(*gorm.DB) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	claimed := make(chan error, 1)
	go func() {
		_, err := f.store.ClaimWebhooks(f.ctx, models.WebhookClaim{Owner: "one", Limit: 1, Lease: time.Minute})
		claimed <- err
	}()
	testserver.Eventually(t, 5*time.Second, func() bool {
		w, _ := f.store.Database().WriterStats()
		return w.Queued > 0
	}, "the claim queued behind the held write")
	f.clock.Advance(10 * time.Second) // the time it waited
	close(release)
	if err := <-blocker; err != nil {
		t.Fatal(err)
	}
	if err := <-claimed; err != nil {
		t.Fatal(err)
	}
	var d models.WebhookDelivery
	if err := f.store.DB().Where("endpoint_id = ?", e.ID).Take(&d).Error; err != nil {
		t.Fatal(err)
	}
	if want := f.clock.Now().Add(time.Minute); d.LeaseOwner != "one" || d.LeaseUntil == nil || !d.LeaseUntil.Equal(want) {
		t.Fatalf("leased to %q until %v, want until %v: a minute from when the claim ran", d.LeaseOwner, d.LeaseUntil, want)
	}
}

// After a failed claim a dispatcher gives back the leases no worker of
// its holds: those of the deliveries it works on stay, and so do other
// dispatchers'.
func TestReleaseIdleWebhookLeasesKeepsTheWorkedOnes(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://a.example.com/")
	f.webhook(f.other, "https://b.example.com/")
	for range 3 {
		f.incident(f.owner, "mine")
	}
	f.incident(f.other, "theirs")
	mine, err := f.store.ClaimWebhookDeliveries(f.ctx, "one", 3, time.Minute)
	if err != nil || len(mine) != 3 {
		t.Fatalf("claimed %d (%v), want 3", len(mine), err)
	}
	theirs, err := f.store.ClaimWebhookDeliveries(f.ctx, "two", 3, time.Minute)
	if err != nil || len(theirs) != 1 {
		t.Fatalf("claimed %d (%v), want 1", len(theirs), err)
	}
	working := mine[0].DeliveryID
	if err := f.store.ReleaseIdleWebhookLeases(f.ctx, "one", []string{working}); err != nil {
		t.Fatal(err)
	}
	leased := func(owner string) []string {
		var ids []string
		if err := f.store.DB().Model(&models.WebhookDelivery{}).Where("lease_owner = ? AND lease_until IS NOT NULL", owner).
			Pluck("id", &ids).Error; err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got := leased("one"); len(got) != 1 || got[0] != working {
		t.Fatalf("one still leases %v, want only %s, the delivery it works on", got, working)
	}
	if got := leased("two"); len(got) != 1 {
		t.Fatalf("two leases %v: another dispatcher's lease was released", got)
	}
	if again, _ := f.store.ClaimWebhookDeliveries(f.ctx, "three", 3, time.Minute); len(again) != 2 {
		t.Fatalf("claimed %d of the released deliveries, want 2", len(again))
	}
	// With nothing worked on, every lease of the owner goes.
	if err := f.store.ReleaseIdleWebhookLeases(f.ctx, "three", nil); err != nil {
		t.Fatal(err)
	}
	if got := leased("three"); len(got) != 0 {
		t.Fatalf("three still leases %v", got)
	}
}
