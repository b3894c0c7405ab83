package models

import (
	"time"

	"gorm.io/gorm"
)

// deliveryStateColumns are what recording an attempt changes in a
// delivery.
var deliveryStateColumns = []string{"attempts", "tries", "status", "next_attempt_at", "lease_owner",
	"lease_until", "last_status_code", "last_error", "updated_at", "completed_at"}

// saveDeliveryStates writes ds's state columns, read under the
// transaction's lock and moved on by applyAttempt. PostgreSQL takes them
// all in one statement: a statement per delivery made the recorder's
// round trips grow with its batch, one per delivery again. SQLite's
// writer makes no round trips, so there each is its own UPDATE.
func saveDeliveryStates(tx *gorm.DB, ds []*WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	if tx.Dialector.Name() != "postgres" {
		for _, d := range ds {
			if err := tx.Model(d).Select(deliveryStateColumns).Updates(d).Error; err != nil {
				return err
			}
		}
		return nil
	}
	var (
		ids, statuses, owners, errs []string
		attempts, tries, codes      []int64
		next, updated               []time.Time
		leases, completed           []*time.Time
	)
	for _, d := range ds {
		ids, statuses, owners, errs = append(ids, d.ID), append(statuses, d.Status), append(owners, d.LeaseOwner), append(errs, d.LastError)
		attempts, tries, codes = append(attempts, int64(d.Attempts)), append(tries, int64(d.Tries)), append(codes, int64(d.LastStatusCode))
		next, updated = append(next, d.NextAttemptAt), append(updated, d.UpdatedAt)
		leases, completed = append(leases, d.LeaseUntil), append(completed, d.CompletedAt)
	}
	return rawOf(tx).exec(saveDeliveryStatesSQL, ids, attempts, tries, statuses, next, owners, leases,
		codes, errs, updated, completed)
}

// saveDeliveryStatesSQL sets deliveryStateColumns from one array each, on
// PostgreSQL.
const saveDeliveryStatesSQL = `UPDATE webhook_deliveries AS d SET attempts = v.attempts, tries = v.tries,
 status = v.status, next_attempt_at = v.next_attempt_at, lease_owner = v.lease_owner, lease_until = v.lease_until,
 last_status_code = v.last_status_code, last_error = v.last_error, updated_at = v.updated_at, completed_at = v.completed_at
FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::timestamptz[], $6::text[], $7::timestamptz[],
 $8::bigint[], $9::text[], $10::timestamptz[], $11::timestamptz[])
 AS v(id, attempts, tries, status, next_attempt_at, lease_owner, lease_until, last_status_code, last_error, updated_at, completed_at)
WHERE d.id = v.id`
