package models_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
)

// A new ticket is written whole, on PostgreSQL in one statement: its
// description as comment 0 and the counts the trigger keeps, a
// ticket.created event with a pending delivery to each enabled endpoint
// that receives it and to no other, the audit event and a new account
// version. A ticket for an account that is not there writes nothing.
func TestCreatedTicketIsWhole(t *testing.T) {
	f := newTicketFixture(t)
	receives := f.webhook(f.owner, "https://hooks.example.com/all")
	for _, in := range []models.SetWebhookInput{
		{URL: "https://hooks.example.com/resolved-only", EventTypes: []string{models.EventTicketResolved}},
		{URL: "https://hooks.example.com/off", Enabled: ptr(false)},
	} {
		if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.other, models.SetWebhookInput{URL: "https://hooks.example.com/other"}); err != nil {
		t.Fatal(err)
	}
	versionBefore := f.accountVersion(f.owner.AccountID)
	// Later than the endpoints' audit events: of events at one instant the
	// newest by id comes first, and ids of one millisecond are random.
	f.clock.Advance(time.Second)
	created := f.incident(f.owner, "whole")

	got, err := f.store.Ticket(f.ctx, f.owner, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Comments) != 1 || got.Comments[0].Seq != 0 || got.Comments[0].Body != created.Description ||
		got.Comments[0].Author != "owner@example.com" {
		t.Fatalf("comments %+v", got.Comments)
	}
	if got.CommentRows != 1 || got.CommentBytes != int64(len(created.Description)) || got.DescriptionAuthor == nil ||
		*got.DescriptionAuthor != "owner@example.com" || created.CommentRows != got.CommentRows ||
		created.CommentBytes != got.CommentBytes || *created.DescriptionAuthor != *got.DescriptionAuthor {
		t.Fatalf("counts stored %d/%d/%v, returned %d/%d/%v", got.CommentRows, got.CommentBytes, got.DescriptionAuthor,
			created.CommentRows, created.CommentBytes, created.DescriptionAuthor)
	}

	page, err := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Deliveries) != 1 || page.Deliveries[0].EndpointID != receives.ID ||
		page.Deliveries[0].Status != models.DeliveryPending || !models.IsID(page.Deliveries[0].ID) {
		t.Fatalf("deliveries %+v", page.Deliveries)
	}
	detail, err := f.store.WebhookDelivery(f.ctx, f.owner, page.Deliveries[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Type string `json:"type"`
		Data struct {
			ID, Subject string
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(detail.RequestBody), &body); err != nil || body.Type != models.EventTicketCreated ||
		body.Data.ID != created.ID || body.Data.Subject != "whole" {
		t.Fatalf("event %s: %v", detail.RequestBody, err)
	}
	if n := f.count(&models.WebhookDelivery{}, ""); n != 1 {
		t.Fatalf("%d deliveries in all, one expected", n)
	}

	events, err := f.store.LatestAuditEvents(f.ctx, f.owner, 1)
	if err != nil || len(events) != 1 || events[0].ResourceName != "ticket" || events[0].Action != "created" {
		t.Fatalf("audit %+v, %v", events, err)
	}
	if f.accountVersion(f.owner.AccountID) == versionBefore {
		t.Fatal("the account's version did not change")
	}

	ghost := f.owner
	ghost.AccountID = models.NewID()
	if _, err := f.store.CreateTicket(f.ctx, ghost, models.CreateTicketInput{Subject: "nowhere", Description: "d",
		Type: models.TicketIncident, Severity: ptr("sev_2")}); err == nil {
		t.Fatal("a ticket for an account that is not there was created")
	}
	if n := f.count(&models.Ticket{}, "subject = ?", "nowhere"); n != 0 {
		t.Fatal("the failed create left a ticket")
	}
	if n := f.count(&models.WebhookEvent{}, ""); n != 1 {
		t.Fatalf("%d events, one expected", n)
	}
}

// accountVersion is the account's stored version (0 without one).
func (f *ticketFixture) accountVersion(accountID string) int64 {
	f.t.Helper()
	var v []int64
	if err := f.store.DB().Model(&models.AccountVersion{}).Where("account_id = ?", accountID).Pluck("version", &v).Error; err != nil {
		f.t.Fatal(err)
	}
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// Only a sev_1 ticket queues mail, so only it wakes the mail dispatcher:
// a wake-up costs that dispatcher a claim.
func TestOnlyASev1TicketWakesTheMailDispatcher(t *testing.T) {
	f := newTicketFixture(t)
	var wakes atomic.Int32
	f.store.OnMail(func() { wakes.Add(1) })
	f.incident(f.owner, "sev 2")
	if _, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "no severity", Description: "d",
		Type: models.TicketServiceRequest}); err != nil {
		t.Fatal(err)
	}
	if n := wakes.Load(); n != 0 {
		t.Fatalf("%d mail wake-ups for tickets that queue no mail", n)
	}
	if _, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "down", Description: "d",
		Type: models.TicketIncident, Severity: ptr("sev_1")}); err != nil {
		t.Fatal(err)
	}
	if n := wakes.Load(); n != 1 {
		t.Fatalf("%d mail wake-ups for a sev_1 ticket, want 1", n)
	}
}
