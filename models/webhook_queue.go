package models

import (
	"context"
	"time"
)

// WebhookQueue is the webhook outbox's backlog at one moment, for
// monitoring.
type WebhookQueue struct {
	Pending   int64      // deliveries waiting for an attempt, due or not
	OldestDue *time.Time // when the longest-waiting due delivery fell due; nil if none is due
}

// WebhookQueueState counts pending deliveries and finds the oldest due one
// of an enabled endpoint (a disabled endpoint's backlog waits on purpose).
// Both reads walk the (status, next_attempt_at) index, so a scrape stays
// cheap with a long queue; the caller bounds it with ctx.
func (s *Store) WebhookQueueState(ctx context.Context) (WebhookQueue, error) {
	var q WebhookQueue
	if err := s.read(ctx).Model(&WebhookDelivery{}).Where("status = ?", DeliveryPending).
		Count(&q.Pending).Error; err != nil {
		return q, err
	}
	var due []time.Time
	err := s.read(ctx).Model(&WebhookDelivery{}).
		Where("status = ? AND next_attempt_at <= ?", DeliveryPending, s.Now()).
		Where("endpoint_id IN (?)", s.read(ctx).Model(&WebhookEndpoint{}).Select("id").Where("enabled = ?", true)).
		Order("next_attempt_at").Limit(1).Pluck("next_attempt_at", &due).Error
	if len(due) > 0 {
		q.OldestDue = &due[0]
	}
	return q, err
}
