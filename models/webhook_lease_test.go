package models_test

import (
	"testing"
	"time"

	"cloudplane/models"
	"gorm.io/gorm"
)

// A claim that waits in SQLite's write queue times its leases from when
// its transaction runs, not from when it asked: otherwise the wait is
// taken from the attempt's time and the lease may end while the attempt
// is still being recorded, and another dispatcher sends it again.
func TestClaimLeaseRunsFromItsTransaction(t *testing.T) {
	f := newTicketFixture(t)
	if _, ok := models.WriterStats(f.store.DB()); !ok {
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
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if w, _ := models.WriterStats(f.store.DB()); w.Queued > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim never queued behind the held write")
		}
	}
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
