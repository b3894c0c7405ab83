package models

import (
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DefaultWebhookEndpointConcurrency is how many deliveries one endpoint
// may have in flight at once, across dispatchers, unless configured.
const DefaultWebhookEndpointConcurrency = 4

// WebhookEndpointConcurrency is how many deliveries one endpoint may have
// in flight at once (Config.WebhookEndpointConcurrency).
func (s *Store) WebhookEndpointConcurrency() int {
	if s.cfg.WebhookEndpointConcurrency > 0 {
		return s.cfg.WebhookEndpointConcurrency
	}
	return DefaultWebhookEndpointConcurrency
}

// skipLocked makes a PostgreSQL query pass over rows another transaction
// has locked; SQLite's dialect drops it (its writers are serialised).
var skipLocked = clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}

// claimable narrows db to pending deliveries due at now that no
// unexpired lease holds.
func claimable(db *gorm.DB, now time.Time) *gorm.DB {
	return db.Model(&WebhookDelivery{}).
		Where("status = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)", DeliveryPending, now, now)
}

// saturated selects the endpoints that have WebhookEndpointConcurrency
// deliveries or more under an unexpired lease.
func (s *Store) saturated(db *gorm.DB, now time.Time) *gorm.DB {
	return db.Model(&WebhookDelivery{}).Select("endpoint_id").
		Where("status = ? AND lease_until > ?", DeliveryPending, now).
		Group("endpoint_id").Having("COUNT(*) >= ?", s.WebhookEndpointConcurrency())
}

// lockClaimableEndpoints returns up to limit enabled endpoints that have
// due deliveries and looked below their in-flight cap, oldest due delivery
// first, locking each on PostgreSQL (skipping those another dispatcher is
// claiming for). The cap is counted again once they are locked: the
// first look may predate another dispatcher's commit.
func (s *Store) lockClaimableEndpoints(tx *gorm.DB, now time.Time, limit int) ([]string, error) {
	var ids, locked []string
	enabled := tx.Model(&WebhookEndpoint{}).Select("id").Where("enabled = ?", true)
	err := claimable(tx, now).Where("endpoint_id IN (?)", enabled).
		Where("endpoint_id NOT IN (?)", s.saturated(tx, now)).
		Group("endpoint_id").Order("MIN(next_attempt_at), endpoint_id").Limit(limit).Pluck("endpoint_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	// NO KEY UPDATE: strong enough to keep two claims apart, and unlike
	// UPDATE it lets tickets insert deliveries for the endpoint meanwhile.
	err = tx.Model(&WebhookEndpoint{}).Clauses(clause.Locking{Strength: "NO KEY UPDATE", Options: "SKIP LOCKED"}).
		Where("id IN ? AND enabled = ?", ids, true).Pluck("id", &locked).Error
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ids, func(id string) bool { return !slices.Contains(locked, id) }), nil
}

// pickDeliveries chooses up to limit due deliveries of the locked
// endpoints, each within its free slots, round-robin.
func (s *Store) pickDeliveries(tx *gorm.DB, now time.Time, endpoints []string, limit int) ([]string, error) {
	var busy []struct {
		EndpointID string
		N          int
	}
	err := tx.Model(&WebhookDelivery{}).Select("endpoint_id, COUNT(*) AS n").
		Where("endpoint_id IN ? AND status = ? AND lease_until > ?", endpoints, DeliveryPending, now).
		Group("endpoint_id").Scan(&busy).Error
	if err != nil {
		return nil, err
	}
	inFlight := make(map[string]int, len(busy))
	for _, b := range busy {
		inFlight[b.EndpointID] = b.N
	}
	queues := make([][]string, 0, len(endpoints))
	for _, id := range endpoints {
		free := min(s.WebhookEndpointConcurrency()-inFlight[id], limit)
		if free <= 0 {
			continue
		}
		var due []string
		if err := claimable(tx, now).Clauses(skipLocked).Where("endpoint_id = ?", id).
			Order("next_attempt_at, id").Limit(free).Pluck("id", &due).Error; err != nil {
			return nil, err
		}
		queues = append(queues, due)
	}
	return roundRobin(queues, limit), nil
}

// roundRobin takes the first of each queue, then the second of each, and
// so on, up to limit.
func roundRobin(queues [][]string, limit int) []string {
	var out []string
	for round := 0; len(out) < limit; round++ {
		took := false
		for _, q := range queues {
			if round < len(q) && len(out) < limit {
				out, took = append(out, q[round]), true
			}
		}
		if !took {
			break
		}
	}
	return out
}
