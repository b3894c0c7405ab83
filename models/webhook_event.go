package models

import (
	"encoding/json"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Webhook event types.
const (
	EventTicketCreated       = "ticket.created"
	EventTicketStatusChanged = "ticket.status_changed" // the ticket stays open
	EventTicketResolved      = "ticket.resolved"       // it became solved or closed
	EventWebhookTest         = "webhook.test"          // sent on the owner's request
	// The month's spend reached a budget threshold (budget_alert.go).
	EventBillingBudgetThreshold = "billing.budget_threshold"
)

// WebhookAPIVersion labels the shape of event payloads; it changes only
// when the shape does.
const WebhookAPIVersion = "2026-01-01"

// WebhookEvent is an outbox row: written in the same transaction as the
// change it reports, so it exists if and only if the change committed.
// Payload is the JSON envelope exactly as every delivery of it sends it.
type WebhookEvent struct {
	ID        string    `gorm:"primaryKey;size:32"`
	AccountID string    `gorm:"size:32;not null;index"`
	Type      string    `gorm:"size:64;not null"`
	TicketID  *string   `gorm:"size:32;index"`
	Payload   string    `gorm:"not null"`
	CreatedAt time.Time `gorm:"not null;autoCreateTime:false;index"`
}

// EventEnvelope is the body of a delivery.
type EventEnvelope struct {
	ID         string `json:"id"`
	Object     string `json:"object"` // always "event"
	Type       string `json:"type"`
	Created    int64  `json:"created"` // unix seconds
	APIVersion string `json:"api_version"`
	// Test is true on an example the owner sent from the dashboard, whose
	// data is made up; absent on real events.
	Test bool `json:"test,omitempty"`
	Data any  `json:"data"`
}

// eventPayload is the JSON body of every delivery of an event: the one
// place its envelope is made, for the outbox and for the catalogue alike.
func eventPayload(id, typ string, created time.Time, data any, test bool) ([]byte, error) {
	return json.Marshal(EventEnvelope{ID: id, Object: "event", Type: typ, Created: created.Unix(),
		APIVersion: WebhookAPIVersion, Test: test, Data: data})
}

// TicketEventData is the ticket as events carry it, with its full status
// (new and closed included). Absent optional values are null.
type TicketEventData struct {
	Object      string  `json:"object"` // always "ticket"
	ID          string  `json:"id"`
	Subject     string  `json:"subject"`
	Description string  `json:"description"`
	RequestType string  `json:"request_type"`
	Severity    *string `json:"severity"`
	Status      string  `json:"status"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	InstanceIP  *string `json:"instance_ip"`
	InstanceID  *string `json:"instance_id"`
	ClusterID   *string `json:"cluster_id"`
	Source      string  `json:"source"`
}

func ticketEventData(t *Ticket) TicketEventData {
	return TicketEventData{Object: "ticket", ID: t.ID, Subject: t.Subject, Description: t.Description,
		RequestType: t.RequestType, Severity: t.Severity, Status: t.Status,
		CreatedAt: t.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: t.UpdatedAt.UTC().Format(time.RFC3339),
		InstanceIP: t.InstanceIP, InstanceID: t.InstanceID, ClusterID: t.ClusterID, Source: t.Source}
}

func (s *Store) enqueueTicketEvent(tx *gorm.DB, typ string, t *Ticket) error {
	_, err := s.enqueueEvent(tx, t.AccountID, typ, &t.ID, ticketEventData(t), "")
	return err
}

// webhookTestData is the data of a webhook.test event.
func webhookTestData() map[string]any {
	return map[string]any{"object": "webhook_test", "message": "A test event sent from the cloudplane dashboard"}
}

// enqueueEvent writes an event and one pending delivery for each enabled
// endpoint of the account that receives its type (or only for endpoint
// only, whatever it receives), inside the caller's transaction. The caller
// calls s.wake() once the transaction has committed.
func (s *Store) enqueueEvent(tx *gorm.DB, accountID, typ string, ticketID *string, data any, only string) (*WebhookEvent, error) {
	now := s.Now()
	ev := WebhookEvent{ID: NewID(), AccountID: accountID, Type: typ, TicketID: ticketID, CreatedAt: now}
	raw, err := eventPayload(ev.ID, typ, now, data, only != "")
	if err != nil {
		return nil, err
	}
	ev.Payload = string(raw)
	if err := tx.Create(&ev).Error; err != nil {
		return nil, err
	}
	// KEY SHARE (PostgreSQL): an endpoint being deleted or disabled
	// meanwhile is waited for and then skipped, rather than given a
	// delivery that breaks its foreign key or is never sent.
	var endpoints []WebhookEndpoint
	if err := tx.Clauses(clause.Locking{Strength: "KEY SHARE"}).Select("id", "event_types").
		Where("account_id = ? AND enabled = ?", accountID, true).Find(&endpoints).Error; err != nil {
		return nil, err
	}
	for _, e := range endpoints {
		if only != "" && e.ID != only || only == "" && !e.Receives(typ) {
			continue
		}
		d := WebhookDelivery{ID: NewID(), EventID: ev.ID, EndpointID: e.ID, Status: DeliveryPending,
			NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(&d).Error; err != nil {
			return nil, err
		}
	}
	return &ev, nil
}
