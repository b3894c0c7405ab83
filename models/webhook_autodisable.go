package models

import (
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
	for _, endpointID := range slices.Sorted(maps.Keys(latest)) { // one lock order
		succeeded := latest[endpointID]
		if succeeded {
			if err := tx.Model(&WebhookEndpoint{}).Where("id = ? AND failing_since IS NOT NULL", endpointID).
				Update("failing_since", nil).Error; err != nil {
				return err
			}
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
			reason := "every delivery attempt failed for 5 days (since " + since[0].UTC().Format(time.RFC3339) + ")"
			if err := s.disableEndpoint(tx, endpointID, reason); err != nil {
				return err
			}
		}
	}
	return nil
}
