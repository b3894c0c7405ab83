package models

import (
	"slices"
	"time"

	"gorm.io/gorm"
)

// lockDueAccounts locks, on PostgreSQL, every enabled endpoint of every
// account with a claimable delivery, passing over rows another
// transaction holds, and returns the accounts whose endpoints it locked
// all of: another dispatcher is claiming for the rest (or their endpoints
// are being edited), and counting their leases now could count a slot it
// is taking. The claim looks at the locked accounts alone, after this
// statement, so its snapshot holds every lease committed before the
// locks. A look before the locks, to lock only the accounts it gave a
// share, was a statement more per claim and the costliest one: at 400
// tickets/s the claims ran back to back, and an event's wait for its
// delivery is about one and a half of them (issue 24).
func lockDueAccounts(tx *gorm.DB, now time.Time) ([]string, error) {
	rows, err := rawOf(tx).query(lockDueAccountsSQL, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var accounts []string
	missing := map[string]bool{} // every account seen: whether an endpoint of it was not locked
	for rows.Next() {
		var account string
		var locked bool
		if err := rows.Scan(&account, &locked); err != nil {
			return nil, err
		}
		if _, seen := missing[account]; !seen {
			accounts = append(accounts, account)
		}
		missing[account] = missing[account] || !locked
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(accounts, func(a string) bool { return missing[a] }), nil
}

// lockDueAccountsSQL: $1 now. NO KEY UPDATE is strong enough to keep two
// claims apart, and unlike UPDATE it lets tickets insert deliveries for
// the endpoints meanwhile. The due probe reads idx_webhook_deliveries_pending
// as dueEndpoints does.
var lockDueAccountsSQL = `WITH due AS (
 SELECT DISTINCT p.account_id FROM webhook_endpoints AS p
 CROSS JOIN LATERAL (SELECT 1 FROM webhook_deliveries d
  WHERE d.endpoint_id = p.id AND ` + claimableSQL("d.", "$1") + `
  ORDER BY d.next_attempt_at, d.id LIMIT 1) AS o
 WHERE p.enabled
)
SELECT p.account_id, l.id IS NOT NULL AS locked
FROM webhook_endpoints AS p JOIN due ON due.account_id = p.account_id
LEFT JOIN LATERAL (SELECT q.id FROM webhook_endpoints q WHERE q.id = p.id FOR NO KEY UPDATE SKIP LOCKED) AS l ON true
WHERE p.enabled`

// leaseDueDeliveries is pickDeliveries and leaseDeliveries in one
// statement, on PostgreSQL: for each endpoint of due its share in take of
// due deliveries, the oldest first, passing over rows another claim has
// locked; leased to owner until until; returned as jobs in the order
// leaseDeliveries gives. A statement per endpoint's pick, then the lease,
// then the jobs' read made a claim's round trips grow with its endpoints:
// at 400 tickets/s the picks were the statement PostgreSQL ran most.
func leaseDueDeliveries(tx *gorm.DB, now time.Time, due []dueEndpoint, take map[string]int, owner string, until time.Time) ([]DeliveryJob, error) {
	var endpoints []string
	var shares []int64
	for _, d := range due {
		if n := take[d.EndpointID]; n > 0 {
			endpoints, shares = append(endpoints, d.EndpointID), append(shares, int64(n))
		}
	}
	if len(endpoints) == 0 {
		return nil, nil
	}
	rows, err := rawOf(tx).query(leaseDueDeliveriesSQL, endpoints, shares, now, owner, until)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []DeliveryJob
	for rows.Next() {
		var job DeliveryJob
		if err := tx.ScanRows(rows, &job); err != nil {
			return nil, err
		}
		jobs = append(jobs, job)
	}
	return jobs, rows.Err()
}

// leaseDueDeliveriesSQL: $1 the endpoints, $2 how many of each, $3 now,
// $4 the owner, $5 the lease's end. The LATERAL pick reads
// idx_webhook_deliveries_pending as pickDeliveries does.
var leaseDueDeliveriesSQL = `WITH picked AS (
 SELECT q.id FROM unnest($1::text[], $2::bigint[]) AS t(endpoint_id, n)
 CROSS JOIN LATERAL (SELECT d.id FROM webhook_deliveries d
  WHERE d.endpoint_id = t.endpoint_id AND ` + claimableSQL("d.", "$3") + `
  ORDER BY d.next_attempt_at, d.id LIMIT t.n FOR UPDATE SKIP LOCKED) AS q
), leased AS (
 UPDATE webhook_deliveries AS d SET lease_owner = $4, lease_until = $5 FROM picked WHERE d.id = picked.id
 RETURNING d.id, d.event_id, d.tries, d.endpoint_id, d.next_attempt_at
)
SELECT l.id AS delivery_id, l.event_id, l.tries, e.type AS event_type, e.payload, l.endpoint_id,
 p.url, p.token, p.secret, p.previous_secret, p.previous_secret_until, p.headers
FROM leased AS l JOIN webhook_events AS e ON e.id = l.event_id JOIN webhook_endpoints AS p ON p.id = l.endpoint_id
ORDER BY l.next_attempt_at, l.id`
