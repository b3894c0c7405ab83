package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// WebhookEventTypes are every type of event cloudplane sends, in the order
// the event catalogue lists them.
var WebhookEventTypes = []string{EventTicketCreated, EventTicketStatusChanged, EventTicketResolved, EventWebhookTest,
	EventBillingBudgetThreshold}

// Examples an owner may send to their endpoints: at most
// MaxWebhookExamples per account within WebhookExampleWindow.
const (
	MaxWebhookExamples   = 10
	WebhookExampleWindow = 10 * time.Minute
)

// exampleEventData is made-up data of an event of typ, shaped exactly as a
// real event's (the same struct), created at now; ticketID names the
// example's ticket.
func exampleEventData(typ, ticketID string, now time.Time) (any, error) {
	status := map[string]string{EventTicketCreated: TicketNew, EventTicketStatusChanged: TicketPending,
		EventTicketResolved: TicketSolved}
	if typ == EventWebhookTest {
		return webhookTestData(), nil
	}
	if typ == EventBillingBudgetThreshold {
		return exampleBudgetAlert(now).eventData(), nil
	}
	st, ok := status[typ]
	if !ok {
		return nil, InvalidField("event_type", "must be one of "+strings.Join(WebhookEventTypes, ", "))
	}
	sev, ip := "sev_2", "203.0.113.10"
	created := now.Add(-time.Hour)
	if typ == EventTicketCreated {
		created = now
	}
	return ticketEventData(&Ticket{ID: ticketID, Subject: "Example: my instance does not answer on SSH",
		Description: "An example ticket: cloudplane made it up to show the event's shape.",
		RequestType: TicketIncident, Severity: &sev, Status: st, CreatedAt: created, UpdatedAt: now,
		InstanceIP: &ip, Source: TicketSourceDashboard}), nil
}

// ExampleWebhookEvent is the body of an event of typ as a delivery sends
// it (the envelope every delivery uses; made-up data, fixed ids), dated
// at, indented for reading. An unknown typ is CodeInvalidParameters.
func ExampleWebhookEvent(typ string, at time.Time) (string, error) {
	data, err := exampleEventData(typ, "0123456789abcdef0123456789abcdef", at)
	if err != nil {
		return "", err
	}
	raw, err := eventPayload("fedcba9876543210fedcba9876543210", typ, at, data, false)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}

// SendTestWebhookEvent queues a webhook.test event to one of the owner's
// endpoints: SendExampleWebhookEvent of EventWebhookTest.
func (s *Store) SendTestWebhookEvent(ctx context.Context, actor Actor, id string) (*WebhookEvent, error) {
	return s.SendExampleWebhookEvent(ctx, actor, id, EventWebhookTest)
}

// SendExampleWebhookEvent queues an example event of typ (any of
// WebhookEventTypes, whether or not the endpoint subscribes to it) to one
// of the owner's endpoints, through the outbox like any event, so the
// dispatcher delivers it and the delivery log shows it. Its envelope has
// "test": true and made-up data. Owners only; the endpoint must exist
// (CodeNotFound) and be enabled, typ be known (CodeInvalidParameters); at
// most MaxWebhookExamples per account in WebhookExampleWindow
// (CodeRateLimited). Recorded as an audit event naming the type.
func (s *Store) SendExampleWebhookEvent(ctx context.Context, actor Actor, id, typ string) (*WebhookEvent, error) {
	accountID, err := actor.manages()
	if err != nil {
		return nil, err
	}
	if !IsID(id) {
		return nil, NotFound("webhook", id)
	}
	if !slices.Contains(WebhookEventTypes, typ) {
		return nil, InvalidField("event_type", "must be one of "+strings.Join(WebhookEventTypes, ", "))
	}
	var ev *WebhookEvent
	err = s.write(ctx, func(tx *gorm.DB) error {
		var e WebhookEndpoint
		err := tx.Where("id = ? AND account_id = ?", id, accountID).Take(&e).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return NotFound("webhook", id)
		} else if err != nil {
			return err
		}
		if !e.Enabled {
			return InvalidField("enabled", "the webhook is disabled; enable it before sending a test event")
		}
		var sent int64
		if err := tx.Model(&AuditEvent{}).Where("account_id = ? AND resource_name = ? AND action = ? AND event_time > ?",
			accountID, "webhook", "tested", s.Now().Add(-WebhookExampleWindow)).Count(&sent).Error; err != nil {
			return err
		}
		if sent >= MaxWebhookExamples {
			return &Error{Code: CodeRateLimited, Message: "Too many examples sent",
				Suggestion: "An account may send " + strconv.Itoa(MaxWebhookExamples) + " examples in 10 minutes; try again in a few minutes."}
		}
		data, err := exampleEventData(typ, NewID(), s.Now())
		if err != nil {
			return err
		}
		if ev, err = s.enqueueEvent(tx, accountID, typ, nil, data, e.ID); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "webhook", "tested", []string{lrn("webhook", e.ID)}, map[string]any{"event_type": typ})
	})
	if err != nil {
		return nil, err
	}
	s.wake()
	return ev, nil
}
