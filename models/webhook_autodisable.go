package models

import (
	"context"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
)

// WebhookFailingLimit is how long an endpoint's attempts may all fail
// before cloudplane disables it: a receiver gone for good should not be
// retried forever, and its owner should hear about it.
const WebhookFailingLimit = 5 * 24 * time.Hour

// trackEndpointFailures keeps each endpoint's FailingSince current with
// the attempts just recorded (the latest of an endpoint decides: a success
// clears it, a failure starts it if it was clear), and disables an
// endpoint whose attempts have all failed for WebhookFailingLimit.
func (s *Store) trackEndpointFailures(tx *gorm.DB, records []AttemptRecord) error {
	latest := map[string]bool{}
	for _, r := range records {
		latest[r.Job.EndpointID] = r.Attempt.Succeeded
	}
	now := s.Now()
	var recovered []string
	for _, endpointID := range slices.Sorted(maps.Keys(latest)) { // one lock order
		if latest[endpointID] {
			recovered = append(recovered, endpointID)
			continue
		}
		if err := tx.Model(&WebhookEndpoint{}).Where("id = ? AND failing_since IS NULL", endpointID).
			Update("failing_since", now).Error; err != nil {
			return err
		}
		var since []time.Time
		if err := tx.Model(&WebhookEndpoint{}).Where("id = ? AND enabled = ?", endpointID, true).
			Pluck("failing_since", &since).Error; err != nil {
			return err
		}
		if len(since) == 1 && !since[0].After(now.Add(-WebhookFailingLimit)) {
			if err := s.disableEndpoint(tx, endpointID, failingReason(since[0])); err != nil {
				return err
			}
		}
	}
	return clearFailingSince(tx, recovered)
}

// clearFailingSince ends the failing streak of the endpoints ids, sorted,
// in one statement: nearly every batch holds only successes, each of an
// endpoint that was not failing, and a statement for each cost the
// recorder a round trip per endpoint. The rows it changes are locked in
// ids' order (PostgreSQL).
func clearFailingSince(tx *gorm.DB, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	failing := tx.Model(&WebhookEndpoint{}).Select("id").
		Where("id IN ? AND failing_since IS NOT NULL", ids).Order("id").Clauses(forUpdate)
	return tx.Model(&WebhookEndpoint{}).Where("id IN (?)", failing).Update("failing_since", nil).Error
}

// DisableFailingWebhookEndpoints disables every enabled endpoint whose
// attempts have all failed for WebhookFailingLimit. Recording an attempt
// already does this, but once an endpoint's retries run out no attempt
// comes to notice the limit; the retention job calls this so such an
// endpoint is switched off (and its owner told) without waiting for the
// next event. It returns how many it disabled.
func (s *Store) DisableFailingWebhookEndpoints(ctx context.Context) (int, error) {
	var ids []string
	cutoff := s.Now().Add(-WebhookFailingLimit)
	if err := s.read(ctx).Model(&WebhookEndpoint{}).
		Where("enabled = ? AND failing_since IS NOT NULL AND failing_since <= ?", true, cutoff).
		Order("id").Limit(1000).Pluck("id", &ids).Error; err != nil {
		return 0, translate(err)
	}
	disabled := 0
	for _, id := range ids {
		var done bool // set in the transaction, which may run again
		err := s.write(ctx, func(tx *gorm.DB) error {
			done = false
			// Read again under the write: a success may have cleared it.
			var since []time.Time
			if err := tx.Model(&WebhookEndpoint{}).Where("id = ? AND enabled = ?", id, true).
				Pluck("failing_since", &since).Error; err != nil {
				return err
			}
			if len(since) != 1 || since[0].After(cutoff) {
				return nil
			}
			done = true
			return s.disableEndpoint(tx, id, failingReason(since[0]))
		})
		if err != nil {
			return disabled, err
		}
		if done {
			disabled++
		}
	}
	if disabled > 0 {
		s.wakeMail() // its owners are told
	}
	return disabled, nil
}

func failingReason(since time.Time) string {
	return "every delivery attempt failed for 5 days (since " + since.UTC().Format(time.RFC3339) + ")"
}
