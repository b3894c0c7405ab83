package models_test

import (
	"context"
	"sync/atomic"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// fixture is a migrated store with two owners (two accounts), a support
// user, an injected clock and a count of outbox wake-ups.
type ticketFixture struct {
	t       *testing.T
	ctx     context.Context
	store   *models.Store
	clock   *modelstest.Clock
	owner   models.Actor
	other   models.Actor
	support models.Actor
	wakes   atomic.Int32
}

func newTicketFixture(t *testing.T) *ticketFixture {
	t.Helper()
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true
	clock := modelstest.NewClock()
	f := &ticketFixture{t: t, ctx: context.Background(), clock: clock,
		store: modelstest.Open(t, models.WithConfig(cfg), models.WithClock(clock.Now))}
	f.store.OnOutbox(func() { f.wakes.Add(1) })
	owner, _ := modelstest.Owner(t, f.store, "owner@example.com")
	other, _ := modelstest.Owner(t, f.store, "other@example.com")
	support, err := f.store.CreateUser(f.ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	f.owner, f.other, f.support = owner.Actor(), other.Actor(), support.Actor()
	return f
}

// count is how many rows of model match where.
func (f *ticketFixture) count(model any, where string, args ...any) int64 {
	f.t.Helper()
	var n int64
	q := f.store.DB().Model(model)
	if where != "" {
		q = q.Where(where, args...)
	}
	if err := q.Count(&n).Error; err != nil {
		f.t.Fatal(err)
	}
	return n
}

// incident opens a sev_2 incident as actor.
func (f *ticketFixture) incident(actor models.Actor, subject string) *models.Ticket {
	f.t.Helper()
	t, err := f.store.CreateTicket(f.ctx, actor, models.CreateTicketInput{
		Subject: subject, Description: "It broke.", Type: models.TicketIncident, Severity: ptr("sev_2")})
	if err != nil {
		f.t.Fatal(err)
	}
	return t
}

// webhook gives actor's account an enabled endpoint.
func (f *ticketFixture) webhook(actor models.Actor, url string) *models.WebhookEndpoint {
	f.t.Helper()
	e, _, err := f.store.SetWebhook(f.ctx, actor, models.SetWebhookInput{URL: url})
	if err != nil {
		f.t.Fatal(err)
	}
	return e
}

// expectCode fails unless err is a domain error with code and, when field
// is not empty, a message for that field.
func expectCode(t *testing.T, err error, code models.Code, field string) {
	t.Helper()
	e, ok := models.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if field != "" {
		if _, named := e.Fields[field]; !named {
			t.Fatalf("error %q does not name field %q (fields %v)", e.Message, field, e.Fields)
		}
	}
}
