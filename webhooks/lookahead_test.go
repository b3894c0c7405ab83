package webhooks_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"

	"gorm.io/gorm"
)

// The dispatcher asks when the next delivery falls due beside its loop:
// while that question is out (on PostgreSQL under load, 10-20 ms every
// 50 ms), events that commit are still claimed and sent. Here the answer
// is held until the test ends, and an event is delivered meanwhile.
func TestDeliveriesGoOutWhileTheNextDueIsAsked(t *testing.T) {
	store := openShared(t, 1)[0]
	ctx := context.Background()
	asking := make(chan struct{}, 1)
	release := make(chan struct{})
	var once sync.Once
	if err := store.DB().Callback().Query().After("gorm:query").Register("test:hold_next_due", func(db *gorm.DB) {
		if !strings.Contains(db.Statement.SQL.String(), "ORDER BY lease_until") {
			return
		}
		once.Do(func() { asking <- struct{}{} })
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, status(http.StatusNoContent))
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	if _, _, err := store.SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: rc.URL}); err != nil {
		t.Fatal(err)
	}
	startDispatcher(t, store, webhooks.Config{}, func() { close(release) })

	select {
	case <-asking: // the first look ahead, at start, is held
	case <-time.After(deadline):
		t.Fatal("the dispatcher never asked when the next delivery falls due")
	}
	sev := "sev_3"
	ticket, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "s", Description: "d",
		Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-rc.got:
		if !strings.Contains(string(got.body), ticket.ID) {
			t.Fatalf("received %s, want the event of ticket %s", got.body, ticket.ID)
		}
	case <-time.After(deadline):
		t.Fatalf("ticket %s was not delivered within %v while the next due was being asked", ticket.ID, deadline)
	}
}
