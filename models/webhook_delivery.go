package models

import (
	"context"
	"slices"
	"time"

	"gorm.io/gorm"
)

// Delivery statuses. A delivery is pending until an attempt succeeds or
// the retry schedule runs out; a failed (or succeeded) delivery becomes
// pending again only when someone redelivers it by hand.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one event on its way to one endpoint. While a
// dispatcher works on it, it holds a lease (owner and expiry); a lease that
// expires, because its process died, lets another dispatcher take it over.
type WebhookDelivery struct {
	ID             string     `gorm:"primaryKey;size:32;index:idx_webhook_deliveries_pending,priority:3"`
	EventID        string     `gorm:"size:32;not null;uniqueIndex:idx_webhook_deliveries_event_endpoint,priority:1"`
	EndpointID     string     `gorm:"size:32;not null;uniqueIndex:idx_webhook_deliveries_event_endpoint,priority:2;index;index:idx_webhook_deliveries_pending,priority:1,where:status = 'pending'"`
	Status         string     `gorm:"size:16;not null;index:idx_webhook_deliveries_due,priority:1"`
	NextAttemptAt  time.Time  `gorm:"not null;index:idx_webhook_deliveries_due,priority:2;index:idx_webhook_deliveries_pending,priority:2"`
	Tries          int        `gorm:"not null"` // attempts since last queued: the position in the retry schedule
	Attempts       int        `gorm:"not null"` // attempts ever
	LeaseOwner     string     `gorm:"size:32;not null"`
	LeaseUntil     *time.Time `gorm:"index:idx_webhook_deliveries_leased,where:lease_until IS NOT NULL"`
	LastStatusCode int        `gorm:"not null"`
	LastError      string     `gorm:"size:1024;not null"`
	CreatedAt      time.Time  `gorm:"not null;autoCreateTime:false;index"`
	UpdatedAt      time.Time  `gorm:"not null;autoUpdateTime:false"`
	CompletedAt    *time.Time // when it last succeeded or failed
}

// WebhookAttempt is one try of a delivery, as the delivery log shows it.
// The dispatcher fills in what it observed; RecordWebhookAttempts numbers it.
type WebhookAttempt struct {
	ID              string              `gorm:"primaryKey;size:32"`
	DeliveryID      string              `gorm:"size:32;not null;uniqueIndex:idx_webhook_attempts_number,priority:1"`
	Number          int                 `gorm:"not null;uniqueIndex:idx_webhook_attempts_number,priority:2"`
	EndpointID      string              `gorm:"size:32;not null;index:idx_webhook_attempts_endpoint_time,priority:1"`
	URL             string              `gorm:"size:2048;not null"`
	StartedAt       time.Time           `gorm:"not null;index:idx_webhook_attempts_endpoint_time,priority:2"`
	Duration        time.Duration       `gorm:"not null"`
	RemoteAddr      string              `gorm:"size:64;not null"`         // the address actually connected to
	RequestHeaders  map[string]string   `gorm:"serializer:json;not null"` // as sent, token masked
	StatusCode      int                 `gorm:"not null"`                 // 0 when no response came
	ResponseHeaders map[string][]string `gorm:"serializer:json;not null"`
	ResponseBody    []byte              // at most MaxCapturedBody bytes
	BodyTruncated   bool                `gorm:"not null"`
	ErrorKind       string              `gorm:"size:16;not null"` // dns, refused, timeout, tls, blocked, network, redirect, http
	Error           string              `gorm:"size:1024;not null"`
	Succeeded       bool                `gorm:"not null"`
	CreatedAt       time.Time           `gorm:"not null;autoCreateTime:false"`
}

// DeliveryJob is a claimed delivery with everything sending it needs.
type DeliveryJob struct {
	DeliveryID string
	EventID    string
	EventType  string
	Payload    string
	EndpointID string
	URL        string
	Token      string
	Secret     string
	// PreviousSecret also signs while PreviousSecretUntil is ahead: the
	// endpoint's secret is being rotated.
	PreviousSecret      string
	PreviousSecretUntil *time.Time
	Tries               int
	Headers             []WebhookHeader `gorm:"serializer:json"` // the endpoint's custom headers
}

// DeliveryDecision is what the dispatcher concluded from an attempt.
type DeliveryDecision struct {
	// RetryAt schedules another try of a failed attempt; nil gives up.
	RetryAt *time.Time
	// DisableEndpoint, when set, switches the endpoint off with this reason.
	DisableEndpoint string
	// Stopped reports that the receiver asked not to retry this event: the
	// delivery fails now, whatever tries are left.
	Stopped bool
}

// ClaimWebhookDeliveries is ClaimWebhooks with no reserve: up to limit
// due deliveries leased to owner for lease, shared fairly between
// accounts and endpoints.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, owner string, limit int, lease time.Duration) ([]DeliveryJob, error) {
	claimed, err := s.ClaimWebhooks(ctx, WebhookClaim{Owner: owner, Limit: limit, Lease: lease})
	return claimed.Jobs, err
}

// AttemptRecord is a finished attempt of a claimed delivery and what the
// dispatcher decided from it.
type AttemptRecord struct {
	Job      DeliveryJob
	Attempt  WebhookAttempt
	Decision DeliveryDecision
}

// RecordWebhookAttempts logs attempts, in one transaction so that a busy
// dispatcher commits once for many. For each, while owner still holds the
// delivery's lease, it moves the delivery on: succeeded, pending until
// Decision.RetryAt, or failed; the lease is released. An endpoint disabled
// meanwhile turns a retry into a failure. Decision.DisableEndpoint switches
// the endpoint off in the same transaction (with an audit event).
func (s *Store) RecordWebhookAttempts(ctx context.Context, owner string, records []AttemptRecord) error {
	ids := make([]string, len(records))
	for i, r := range records {
		ids[i] = r.Job.DeliveryID
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		var rows []WebhookDelivery
		if err := tx.Clauses(forUpdate).Where("id IN ?", ids).Order("id").Find(&rows).Error; err != nil {
			return err
		}
		deliveries := make(map[string]*WebhookDelivery, len(rows))
		for i := range rows {
			deliveries[rows[i].ID] = &rows[i]
		}
		var attempts []WebhookAttempt
		var changed []*WebhookDelivery // each once, in the order first recorded
		var disable []AttemptRecord
		for _, r := range records {
			d := deliveries[r.Job.DeliveryID]
			if d == nil {
				continue // pruned meanwhile: nothing left to log against
			}
			if !slices.Contains(changed, d) {
				changed = append(changed, d)
			}
			attempts = append(attempts, s.applyAttempt(d, owner, r))
			if r.Decision.DisableEndpoint != "" {
				disable = append(disable, r)
			}
		}
		if len(attempts) > 0 {
			if err := tx.Create(&attempts).Error; err != nil {
				return err
			}
		}
		if err := saveDeliveryStates(tx, changed); err != nil {
			return err
		}
		for _, r := range disable {
			if err := s.disableEndpoint(tx, deliveries[r.Job.DeliveryID].EndpointID, r.Decision.DisableEndpoint); err != nil {
				return err
			}
		}
		return s.trackEndpointFailures(tx, records)
	})
}

// applyAttempt numbers r's attempt against d and moves d to its next
// state (d is kept current, should it appear twice in a batch).
func (s *Store) applyAttempt(d *WebhookDelivery, owner string, r AttemptRecord) WebhookAttempt {
	now, a, dec := s.Now(), fitAttempt(r.Attempt), r.Decision
	d.Attempts++
	a.ID, a.DeliveryID, a.Number, a.EndpointID, a.CreatedAt = NewID(), d.ID, d.Attempts, d.EndpointID, now
	d.LastStatusCode, d.LastError, d.UpdatedAt = a.StatusCode, a.Error, now
	if d.LeaseOwner != owner || d.LeaseUntil == nil {
		return a // another process holds it now: log the attempt, leave the state to it
	}
	d.Tries++
	d.LeaseOwner, d.LeaseUntil = "", nil
	switch {
	case a.Succeeded:
		d.Status, d.CompletedAt = DeliverySucceeded, &now
	case dec.RetryAt != nil && d.Status == DeliveryPending && dec.DisableEndpoint == "" && !dec.Stopped:
		d.NextAttemptAt = dbTime(*dec.RetryAt)
	default:
		d.Status, d.CompletedAt = DeliveryFailed, &now
	}
	return a
}

// ReleaseIdleWebhookLeases gives up owner's leases on every delivery but
// working, the ones its workers are attempting. A claim that failed may
// still have committed (its deadline fired during COMMIT): the leases
// it took belong to no worker, and would count against their accounts'
// shares until they expire.
func (s *Store) ReleaseIdleWebhookLeases(ctx context.Context, owner string, working []string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		q := tx.Model(&WebhookDelivery{}).Where("lease_owner = ? AND lease_until IS NOT NULL", owner)
		if len(working) > 0 { // NOT IN of nothing would match nothing
			q = q.Where("id NOT IN ?", working)
		}
		return q.Updates(map[string]any{"lease_owner": "", "lease_until": nil}).Error
	})
}

// ReleaseWebhookDeliveries gives up owner's leases without an attempt, so
// the next dispatcher takes the deliveries at once (graceful shutdown). No
// ids releases every lease owner holds.
func (s *Store) ReleaseWebhookDeliveries(ctx context.Context, owner string, ids ...string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		q := tx.Model(&WebhookDelivery{}).Where("lease_owner = ?", owner)
		if len(ids) > 0 {
			q = q.Where("id IN ?", ids)
		}
		return q.Updates(map[string]any{"lease_owner": "", "lease_until": nil}).Error
	})
}

// NextWebhookDue is when the earliest pending delivery of an enabled
// endpoint becomes claimable: its next attempt (if its endpoint has a free
// slot), or the expiry of the lease a dispatcher holds on it. Nil when
// nothing is pending. It reads the first waiting delivery of each enabled
// endpoint (idx_webhook_deliveries_pending) and the leased ones
// (idx_webhook_deliveries_leased), never a backlog waiting behind a cap.
func (s *Store) NextWebhookDue(ctx context.Context) (*time.Time, error) {
	var due, leased []time.Time
	db := s.read(ctx)
	firstWaiting := db.Table("webhook_endpoints AS p").
		Select("(SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = p.id AND d."+pendingLiteral+
			" AND d.lease_until IS NULL ORDER BY d.next_attempt_at, d.id LIMIT 1)").
		Where("p.enabled = ?", true).Where("p.id NOT IN (?)", s.saturated(db, s.Now()))
	if err := db.Model(&WebhookDelivery{}).Where("id IN (?)", firstWaiting).
		Order("next_attempt_at").Limit(1).Pluck("next_attempt_at", &due).Error; err != nil {
		return nil, err
	}
	if err := db.Model(&WebhookDelivery{}).Where("status = ? AND lease_until IS NOT NULL", DeliveryPending).
		Where("endpoint_id IN (?)", db.Model(&WebhookEndpoint{}).Select("id").Where("enabled = ?", true)).
		Order("lease_until").Limit(1).Pluck("lease_until", &leased).Error; err != nil {
		return nil, err
	}
	var next *time.Time
	for _, t := range append(due, leased...) {
		if next == nil || t.Before(*next) {
			next = &t
		}
	}
	return next, nil
}
