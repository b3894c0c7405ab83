package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DeliveryPageSize is how many deliveries a page of the log holds at most.
const DeliveryPageSize = 50

const deliveryPageSecret = "webhook-delivery-page-token"

// DeliveryFilter selects deliveries for the log, newest first.
type DeliveryFilter struct {
	Statuses   []string
	EventTypes []string
	AccountID  string // staff only; owners always get their own
	EndpointID string
	EventID    string
	TicketID   string
	PageToken  string
	Limit      int // 0 or more than DeliveryPageSize means DeliveryPageSize
}

// DeliveryFailing filters deliveries whose latest attempt failed: the
// failed ones and the pending ones being retried (tried since they were
// last queued). It is a filter value, not a status a delivery has.
const DeliveryFailing = "failing"

// deliveryStatusWhere is the condition for deliveries in any of the
// statuses, DeliveryFailing among them.
func deliveryStatusWhere(statuses []string) clause.Expr {
	var plain []string
	failing := false
	for _, st := range statuses {
		if st == DeliveryFailing {
			failing = true
		} else {
			plain = append(plain, st)
		}
	}
	retrying := clause.Expr{SQL: "d.status = ? OR (d.status = ? AND d.tries > 0)", Vars: []any{DeliveryFailed, DeliveryPending}}
	switch {
	case failing && len(plain) > 0:
		return clause.Expr{SQL: "(d.status IN ? OR " + retrying.SQL + ")", Vars: append([]any{plain}, retrying.Vars...)}
	case failing:
		return clause.Expr{SQL: "(" + retrying.SQL + ")", Vars: retrying.Vars}
	}
	return clause.Expr{SQL: "d.status IN ?", Vars: []any{plain}}
}

// Validate checks the filter's values.
func (f *DeliveryFilter) Validate() error {
	var fe FieldErrors
	for _, st := range f.Statuses {
		if st != DeliveryPending && st != DeliverySucceeded && st != DeliveryFailed && st != DeliveryFailing {
			fe.Add("status", fmt.Sprintf("must be pending, succeeded, failed or failing, not %q", st))
		}
	}
	known := []string{EventTicketCreated, EventTicketStatusChanged, EventTicketResolved, EventWebhookTest}
	for _, t := range f.EventTypes {
		if !slices.Contains(known, t) {
			fe.Add("event_type", fmt.Sprintf("unknown event type %q", t))
		}
	}
	checkLine(&fe, "ticket", f.TicketID)
	if f.EndpointID != "" && !IsID(f.EndpointID) {
		fe.Add("endpoint", "is not a webhook endpoint id")
	}
	if f.EventID = strings.TrimSpace(f.EventID); f.EventID != "" && !IsID(f.EventID) {
		fe.Add("event", "is not an event id (32 letters and digits, as in webhook-id)")
	}
	if f.Limit <= 0 || f.Limit > DeliveryPageSize {
		f.Limit = DeliveryPageSize
	}
	return fe.Err()
}

// DeliverySummary is a delivery as the log lists it.
type DeliverySummary struct {
	WebhookDelivery
	EventType string
	TicketID  *string
	AccountID string
	URL       string // the endpoint's URL now
}

// DeliveryPage is one page of the log; NextPageToken is nil on the last.
type DeliveryPage struct {
	Deliveries    []DeliverySummary
	NextPageToken *string
}

func (s *Store) deliveries(ctx context.Context) *gorm.DB {
	return s.read(ctx).Table("webhook_deliveries AS d").
		Select("d.*, e.type AS event_type, e.ticket_id, e.account_id, p.url").
		Joins("JOIN webhook_events e ON e.id = d.event_id").
		Joins("JOIN webhook_endpoints p ON p.id = d.endpoint_id")
}

// WebhookDeliveries lists the delivery log a page at a time: owners their
// account's deliveries, support staff everyone's (or one account's).
func (s *Store) WebhookDeliveries(ctx context.Context, actor Actor, f DeliveryFilter) (*DeliveryPage, error) {
	accountID, err := actor.scope(f.AccountID)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	q := s.deliveries(ctx)
	if accountID != "" {
		q = q.Where("e.account_id = ?", accountID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where(deliveryStatusWhere(f.Statuses))
	}
	if len(f.EventTypes) > 0 {
		q = q.Where("e.type IN ?", f.EventTypes)
	}
	if f.TicketID != "" {
		q = q.Where("e.ticket_id = ?", f.TicketID)
	}
	if f.EndpointID != "" {
		q = q.Where("d.endpoint_id = ?", f.EndpointID)
	}
	if f.EventID != "" {
		q = q.Where("d.event_id = ?", f.EventID)
	}
	if f.PageToken != "" {
		c, err := s.openCursor(ctx, deliveryPageSecret, f.PageToken, "created_at", true)
		if err != nil {
			return nil, err
		}
		q = c.after(q, "d.created_at", "d.id")
	}
	var rows []DeliverySummary
	if err := q.Order(order("d.created_at", "d.id", true)).Limit(f.Limit + 1).Scan(&rows).Error; err != nil {
		return nil, err
	}
	page := &DeliveryPage{Deliveries: rows}
	if len(rows) > f.Limit {
		page.Deliveries = rows[:f.Limit]
		last := rows[f.Limit-1]
		token, err := s.signCursor(ctx, deliveryPageSecret, cursor{OrderBy: "created_at", Desc: true, At: last.CreatedAt, ID: last.ID})
		if err != nil {
			return nil, err
		}
		page.NextPageToken = &token
	}
	return page, nil
}

// DeliveryDetail is one delivery with the body it sends and every attempt,
// oldest first; each attempt keeps the headers it sent, token masked.
type DeliveryDetail struct {
	DeliverySummary
	RequestBody string
	AttemptLog  []WebhookAttempt
}

// WebhookDelivery returns one delivery of the log. Another account's, or
// an unknown id, is CodeNotFound.
func (s *Store) WebhookDelivery(ctx context.Context, actor Actor, id string) (*DeliveryDetail, error) {
	sum, err := s.findDelivery(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	out := &DeliveryDetail{DeliverySummary: *sum}
	if err := s.read(ctx).Model(&WebhookEvent{}).Where("id = ?", sum.EventID).Pluck("payload", &out.RequestBody).Error; err != nil {
		return nil, err
	}
	err = s.read(ctx).Where("delivery_id = ?", id).Order("number").Find(&out.AttemptLog).Error
	return out, err
}

func (s *Store) findDelivery(ctx context.Context, actor Actor, id string) (*DeliverySummary, error) {
	accountID, err := actor.scope("")
	if err != nil {
		return nil, err
	}
	if !IsID(id) {
		return nil, NotFound("delivery", id)
	}
	q := s.deliveries(ctx).Where("d.id = ?", id)
	if accountID != "" {
		q = q.Where("e.account_id = ?", accountID)
	}
	var rows []DeliverySummary
	if err := q.Limit(1).Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, NotFound("delivery", id)
	}
	return &rows[0], nil
}

// WebhookHealth is how an endpoint has fared over the last day.
type WebhookHealth struct {
	Endpoint    WebhookEndpoint
	Attempts    int64
	Succeeded   int64
	SuccessRate *float64 // nil without attempts
	MeanLatency time.Duration
	MaxLatency  time.Duration
	LastError   string // of the latest failed attempt
	LastErrorAt *time.Time
	LastSuccess *time.Time // of the latest successful attempt
}

// Failing reports whether the endpoint needs its owner's attention: it is
// disabled, or its latest attempt in the window failed.
func (h *WebhookHealth) Failing() bool {
	if !h.Endpoint.Enabled {
		return true
	}
	return h.LastErrorAt != nil && (h.LastSuccess == nil || h.LastErrorAt.After(*h.LastSuccess))
}

// HealthWindow is the span WebhookHealth looks back over.
const HealthWindow = 24 * time.Hour

// WebhookHealth reports an endpoint's success rate, mean and longest
// attempt, and latest error over HealthWindow (the owner's own endpoint,
// any for staff). The counts are one aggregate over the (endpoint_id,
// started_at) index's range for the window; the latest error and success
// are one indexed row each.
func (s *Store) WebhookHealth(ctx context.Context, actor Actor, endpointID string) (*WebhookHealth, error) {
	e, err := s.WebhookEndpoint(ctx, actor, endpointID)
	if err != nil {
		return nil, err
	}
	h := &WebhookHealth{Endpoint: *e}
	recent := s.read(ctx).Model(&WebhookAttempt{}).Where("endpoint_id = ? AND started_at >= ?", e.ID, s.Now().Add(-HealthWindow)).
		Session(&gorm.Session{})
	var agg struct {
		Attempts  int64
		Succeeded int64
		Mean      float64
		Longest   int64
	}
	err = recent.Select("COUNT(*) AS attempts, COALESCE(SUM(CASE WHEN succeeded THEN 1 ELSE 0 END), 0) AS succeeded, " +
		"COALESCE(AVG(duration), 0) AS mean, COALESCE(MAX(duration), 0) AS longest").Scan(&agg).Error
	if err != nil {
		return nil, err
	}
	h.Attempts, h.Succeeded = agg.Attempts, agg.Succeeded
	h.MeanLatency, h.MaxLatency = time.Duration(agg.Mean), time.Duration(agg.Longest)
	if h.Attempts > 0 {
		rate := float64(h.Succeeded) / float64(h.Attempts)
		h.SuccessRate = &rate
	}
	var last []WebhookAttempt
	if err := recent.Where("succeeded = ?", false).Order("started_at DESC, number DESC").Limit(1).Find(&last).Error; err != nil {
		return nil, err
	}
	if len(last) == 1 {
		h.LastError, h.LastErrorAt = last[0].Error, &last[0].StartedAt
	}
	var success []time.Time
	if err := recent.Where("succeeded = ?", true).Order("started_at DESC").Limit(1).Pluck("started_at", &success).Error; err != nil {
		return nil, err
	}
	if len(success) == 1 {
		h.LastSuccess = &success[0]
	}
	return h, nil
}

// RedeliverWebhook queues a finished delivery (failed or succeeded) again
// with a fresh retry schedule, at once. Owners redeliver their account's
// (members and viewers get CodeInsufficientScope);
// support staff anyone's. A pending delivery, or one to a disabled
// endpoint, is CodeInvalidParameters. The audit event names who asked.
func (s *Store) RedeliverWebhook(ctx context.Context, actor Actor, id string) (*WebhookDelivery, error) {
	if err := actor.managesWebhooks(); err != nil {
		return nil, err
	}
	sum, err := s.findDelivery(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	var d WebhookDelivery
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(forUpdate).Where("id = ?", id).Take(&d).Error; err != nil {
			return err
		}
		if d.Status == DeliveryPending {
			return InvalidField("status", "the delivery is still pending; it is redelivered on its own")
		}
		if err := requireEnabled(tx, d.EndpointID); err != nil {
			return err
		}
		if _, err := s.requeue(tx, tx.Where("id = ?", id)); err != nil {
			return err
		}
		return s.audit(tx, actor, sum.AccountID, "webhook_delivery", "redelivered", []string{lrn("webhook_delivery", id)},
			map[string]any{"event_id": d.EventID, "event_type": sum.EventType, "previous_status": d.Status})
	})
	if err != nil {
		return nil, err
	}
	s.wake()
	return &d, nil
}

// RedeliverFailedInput picks the failed deliveries to queue again.
type RedeliverFailedInput struct {
	AccountID string // staff only; owners redeliver their own
	// EndpointID names the endpoint; it may be left out when the account
	// has only one.
	EndpointID string
	Since      time.Time // deliveries created at or after this time
}

// RedeliverFailedWebhooks queues again every failed delivery of an
// account's endpoint created since in.Since, and returns how many. It is
// idempotent: what it queued is pending, so asking again (a second click,
// or two at once: the rows are updated only while still failed) queues
// nothing more. One audit event records who asked, since when and how
// many; a request that queued nothing records none.
func (s *Store) RedeliverFailedWebhooks(ctx context.Context, actor Actor, in RedeliverFailedInput) (int64, error) {
	if in.Since.IsZero() {
		return 0, InvalidField("since", "is required")
	}
	if actor.isStaff() && in.AccountID == "" {
		return 0, InvalidField("account_id", "is required for support staff")
	}
	if err := actor.managesWebhooks(); err != nil {
		return 0, err
	}
	e, err := s.redeliveryEndpoint(ctx, actor, in)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := requireEnabled(tx, e.ID); err != nil {
			return err
		}
		q := tx.Where("endpoint_id = ? AND status = ? AND created_at >= ?", e.ID, DeliveryFailed, dbTime(in.Since))
		if n, err = s.requeue(tx, q); err != nil || n == 0 {
			return err
		}
		return s.audit(tx, actor, e.AccountID, "webhook_delivery", "redelivered", []string{lrn("webhook", e.ID)},
			map[string]any{"since": dbTime(in.Since).Format(time.RFC3339Nano), "count": n})
	})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		s.wake()
	}
	return n, nil
}

// redeliveryEndpoint is the endpoint in names, which must belong to the
// account in view; without a name, the account's only endpoint.
func (s *Store) redeliveryEndpoint(ctx context.Context, actor Actor, in RedeliverFailedInput) (*WebhookEndpoint, error) {
	if in.EndpointID == "" {
		all, err := s.WebhookEndpoints(ctx, actor, in.AccountID)
		switch {
		case err != nil:
			return nil, err
		case len(all) == 0:
			return nil, errNoWebhook
		case len(all) > 1:
			return nil, InvalidField("endpoint", "choose the endpoint to redeliver to")
		}
		return &all[0], nil
	}
	e, err := s.WebhookEndpoint(ctx, actor, in.EndpointID)
	if err != nil {
		return nil, err
	}
	if in.AccountID != "" && e.AccountID != in.AccountID {
		return nil, NotFound("webhook", in.EndpointID)
	}
	return e, nil
}

func requireEnabled(tx *gorm.DB, endpointID string) error {
	var e WebhookEndpoint
	if err := tx.Where("id = ?", endpointID).Take(&e).Error; err != nil {
		return err
	}
	if !e.Enabled {
		return InvalidField("enabled", "the webhook is disabled; enable it before redelivering")
	}
	return nil
}

// requeue makes the deliveries q selects pending again, due now, with a
// fresh retry schedule, and returns how many.
func (s *Store) requeue(tx *gorm.DB, q *gorm.DB) (int64, error) {
	now := s.Now()
	res := q.Model(&WebhookDelivery{}).Updates(map[string]any{"status": DeliveryPending, "tries": 0,
		"next_attempt_at": now, "completed_at": nil, "lease_owner": "", "lease_until": nil, "updated_at": now})
	return res.RowsAffected, res.Error
}

// PruneWebhookLog deletes the finished deliveries (with their attempts) of
// events older than before, then those events once nothing refers to them,
// a batch per transaction so that writers are never held up for long. It
// returns how many deliveries it deleted. The retention job calls it.
func (s *Store) PruneWebhookLog(ctx context.Context, before time.Time) (int64, error) {
	before = dbTime(before)
	var total int64
	for {
		var ids []string
		err := s.read(ctx).Table("webhook_deliveries AS d").Joins("JOIN webhook_events e ON e.id = d.event_id").
			Where("e.created_at < ? AND d.status <> ?", before, DeliveryPending).Limit(500).Pluck("d.id", &ids).Error
		if err != nil {
			return total, err
		}
		if len(ids) == 0 {
			break
		}
		err = s.write(ctx, func(tx *gorm.DB) error {
			if err := tx.Where("delivery_id IN ?", ids).Delete(&WebhookAttempt{}).Error; err != nil {
				return err
			}
			return tx.Where("id IN ? AND status <> ?", ids, DeliveryPending).Delete(&WebhookDelivery{}).Error
		})
		if err != nil {
			return total, err
		}
		total += int64(len(ids))
	}
	return total, s.write(ctx, func(tx *gorm.DB) error {
		return tx.Where("created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)", before).
			Delete(&WebhookEvent{}).Error
	})
}
