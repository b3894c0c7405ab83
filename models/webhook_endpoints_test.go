package models_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Many concurrent creates never take an account past its endpoint quota:
// exactly MaxWebhookEndpoints succeed, the rest get the quota error.
func TestWebhookEndpointQuotaUnderConcurrentCreates(t *testing.T) {
	f := newTicketFixture(t)
	const clients = 3 * models.MaxWebhookEndpoints
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Go(func() {
			<-start
			_, _, errs[i] = f.store.CreateWebhookEndpoint(f.ctx, f.owner,
				models.SetWebhookInput{URL: "https://hooks.example.com/" + strconv.Itoa(i)})
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case models.ErrorCode(err) == models.CodeQuotaExceeded:
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	rows := f.count(&models.WebhookEndpoint{}, "account_id = ?", f.owner.AccountID)
	if created != models.MaxWebhookEndpoints || rows != int64(models.MaxWebhookEndpoints) {
		t.Fatalf("%d creates succeeded, %d rows; want %d", created, rows, models.MaxWebhookEndpoints)
	}
	if n := f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "webhook", "created"); n != int64(created) {
		t.Fatalf("%d audit events for %d creates", n, created)
	}
	// Another account's quota is its own.
	if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.other, models.SetWebhookInput{URL: "https://hooks.example.com/"}); err != nil {
		t.Fatal(err)
	}
}

// SetWebhook without an endpoint (the operator CLI) changes the account's
// first endpoint, creating it once however many run at once.
func TestSetWebhookCreatesOneFirstEndpoint(t *testing.T) {
	f := newTicketFixture(t)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			if _, _, err := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/" + strconv.Itoa(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := f.count(&models.WebhookEndpoint{}, "account_id = ?", f.owner.AccountID); n != 1 {
		t.Fatalf("%d endpoints", n)
	}
}

func TestWebhookEventTypesValidation(t *testing.T) {
	f := newTicketFixture(t)
	_, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/", EventTypes: []string{}})
	expectCode(t, err, models.CodeInvalidParameters, "event_types")
	_, _, err = f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/",
		EventTypes: []string{models.EventTicketResolved, models.EventWebhookTest}})
	expectCode(t, err, models.CodeInvalidParameters, "event_types")
	e, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/",
		EventTypes: []string{models.EventTicketResolved, models.EventTicketCreated, models.EventTicketResolved}})
	if err != nil || len(e.EventTypes) != 2 || e.EventTypes[0] != models.EventTicketCreated {
		t.Fatalf("%+v, %v", e, err)
	}
	if n := f.count(&models.WebhookEndpoint{}, ""); n != 1 {
		t.Fatalf("%d endpoints after refused creates", n)
	}
}

// Redelivering an endpoint's failures is idempotent: however many ask at
// once, each failed delivery is queued once and one audit event says so;
// another endpoint's failures stay as they are.
func TestRedeliverFailedIsIdempotent(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/a")
	second, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/b"})
	if err != nil {
		t.Fatal(err)
	}
	since := f.clock.Now()
	for i := range 3 {
		f.incident(f.owner, "t"+strconv.Itoa(i))
	}
	f.attempt(500, false) // 6 deliveries fail for good
	_, err = f.store.RedeliverFailedWebhooks(f.ctx, f.owner, models.RedeliverFailedInput{Since: since})
	expectCode(t, err, models.CodeInvalidParameters, "endpoint") // two endpoints: which?
	_, err = f.store.RedeliverFailedWebhooks(f.ctx, f.other, models.RedeliverFailedInput{Since: since, EndpointID: e.ID})
	expectCode(t, err, models.CodeNotFound, "")

	const clicks = 16
	counts := make([]int64, clicks)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clicks {
		wg.Go(func() {
			<-start
			n, err := f.store.RedeliverFailedWebhooks(f.ctx, f.owner, models.RedeliverFailedInput{Since: since, EndpointID: e.ID})
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	close(start)
	wg.Wait()
	var total int64
	for _, n := range counts {
		total += n
	}
	if total != 3 {
		t.Fatalf("queued %d in all (%v), want 3", total, counts)
	}
	if n := f.count(&models.WebhookDelivery{}, "endpoint_id = ? AND status = ?", e.ID, models.DeliveryPending); n != 3 {
		t.Fatalf("%d pending", n)
	}
	if n := f.count(&models.WebhookDelivery{}, "endpoint_id = ? AND status = ?", second.ID, models.DeliveryFailed); n != 3 {
		t.Fatalf("the other endpoint has %d failed, want its 3 untouched", n)
	}
	if n := f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "webhook_delivery", "redelivered"); n != 1 {
		t.Fatalf("%d audit events", n)
	}
}

// The grace period of a rotation is the configured one.
func TestRotateWebhookSecretGrace(t *testing.T) {
	cfg := modelstest.Config()
	cfg.WebhookAllowPrivate = true
	cfg.WebhookSecretGrace = time.Hour
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithConfig(cfg), models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	e, _, err := store.SetWebhook(t.Context(), owner.Actor(), models.SetWebhookInput{URL: "https://hooks.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.RotateWebhookSecret(t.Context(), owner.Actor(), e.ID)
	if err != nil || !r.PreviousSecretUntil.Equal(clock.Now().Add(time.Hour)) || !r.Rotating(clock.Now()) ||
		r.Rotating(clock.Now().Add(time.Hour)) {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := store.RotateWebhookSecret(t.Context(), models.OperatorActor, e.ID); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("the operator rotated an owner's secret: %v", err)
	}
}

// The log filters by endpoint and by event id; a malformed id is refused.
func TestDeliveryLogEndpointAndEventFilters(t *testing.T) {
	f := newTicketFixture(t)
	a := f.webhook(f.owner, "https://hooks.example.com/a")
	b, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/b"})
	if err != nil {
		t.Fatal(err)
	}
	f.incident(f.owner, "one")
	f.incident(f.owner, "two")
	all, _ := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{})
	byA, _ := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{EndpointID: a.ID})
	event := all.Deliveries[0].EventID
	byEvent, _ := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{EventID: " " + event + " "})
	if len(all.Deliveries) != 4 || len(byA.Deliveries) != 2 || len(byEvent.Deliveries) != 2 {
		t.Fatalf("all %d, endpoint a %d, event %d", len(all.Deliveries), len(byA.Deliveries), len(byEvent.Deliveries))
	}
	for _, d := range byEvent.Deliveries {
		if d.EventID != event {
			t.Fatalf("event filter let %s through", d.EventID)
		}
	}
	_, err = f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{EventID: "evt_1"})
	expectCode(t, err, models.CodeInvalidParameters, "event")
	_, err = f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{EndpointID: "x"})
	expectCode(t, err, models.CodeInvalidParameters, "endpoint")
	if other, _ := f.store.WebhookDeliveries(f.ctx, f.other, models.DeliveryFilter{EndpointID: b.ID}); len(other.Deliveries) != 0 {
		t.Fatal("another account saw the endpoint's deliveries")
	}
}

// Tickets written while their account's endpoint is deleted or disabled
// all succeed, and none leaves a pending delivery to an endpoint that is
// gone or off.
func TestTicketsWhileEndpointsChange(t *testing.T) {
	f := newTicketFixture(t)
	gone := f.webhook(f.owner, "https://hooks.example.com/gone")
	off, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/off"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 20 {
		wg.Go(func() {
			<-start
			if _, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "t" + strconv.Itoa(i),
				Description: "d", Type: models.TicketIncident, Severity: ptr("sev_2")}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		<-start
		if _, err := f.store.DeleteWebhookEndpoint(f.ctx, f.owner, gone.ID); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		<-start
		if _, err := f.store.SetWebhookEnabled(f.ctx, f.owner, off.ID, false); err != nil {
			t.Error(err)
		}
	})
	close(start)
	wg.Wait()
	if n := f.count(&models.WebhookDelivery{}, "endpoint_id = ?", gone.ID); n != 0 {
		t.Fatalf("%d deliveries to the deleted endpoint", n)
	}
	if n := f.count(&models.WebhookDelivery{}, "endpoint_id = ? AND status = ?", off.ID, models.DeliveryPending); n != 0 {
		t.Fatalf("%d pending deliveries to the disabled endpoint", n)
	}
	if n := f.count(&models.Ticket{}, ""); n != 20 {
		t.Fatalf("%d tickets", n)
	}
}
