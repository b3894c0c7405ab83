package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DefaultWebhookEndpointConcurrency is how many deliveries one endpoint
// may have in flight at once, across dispatchers, unless configured.
const DefaultWebhookEndpointConcurrency = 4

// DefaultWebhookAccountConcurrency is how many deliveries all of one
// account's endpoints together may have in flight at once, across
// dispatchers, unless configured: an eighth of the default workers of
// one dispatcher (webhooks.DefaultWorkers), so one account whose
// receivers hang cannot take them all.
const DefaultWebhookAccountConcurrency = 8

// WebhookEndpointConcurrency is how many deliveries one endpoint may have
// in flight at once (Config.WebhookEndpointConcurrency).
func (s *Store) WebhookEndpointConcurrency() int {
	if s.cfg.WebhookEndpointConcurrency > 0 {
		return s.cfg.WebhookEndpointConcurrency
	}
	return DefaultWebhookEndpointConcurrency
}

// WebhookAccountConcurrency is how many deliveries one account's
// endpoints together may have in flight at once
// (Config.WebhookAccountConcurrency).
func (s *Store) WebhookAccountConcurrency() int {
	if s.cfg.WebhookAccountConcurrency > 0 {
		return s.cfg.WebhookAccountConcurrency
	}
	return DefaultWebhookAccountConcurrency
}

// WebhookClaim asks for due deliveries for one dispatcher.
type WebhookClaim struct {
	Owner string        // the dispatcher's lease owner id
	Limit int           // its idle workers
	Lease time.Duration // how long the claim holds
	// Reserve is how many of the Limit workers only accounts with nothing
	// in flight may take (one each), so that a newly active account finds
	// a worker while others' hanging receivers hold the rest.
	Reserve int
}

// ClaimedWebhooks is what a claim leased.
type ClaimedWebhooks struct {
	Jobs []DeliveryJob
	// HeldBack reports that due deliveries were left, with workers idle,
	// because their endpoint or account had its share in flight (or only
	// the reserve was left): claiming again helps only once an attempt ends.
	HeldBack bool
}

// ClaimWebhooks leases due deliveries of enabled endpoints to c.Owner
// until c.Lease from the start of its transaction, at most c.Limit, shared fairly between accounts
// and within each between its endpoints (claimShares): counted from the
// unexpired leases of every dispatcher, no endpoint has more than
// Config.WebhookEndpointConcurrency in flight and no account more than
// Config.WebhookAccountConcurrency; an account with nothing in flight
// may use the reserve; the rest goes to the accounts with the fewest in
// flight. So a receiver that hangs, or a burst to one account, holds up
// only its own account's deliveries.
//
// On PostgreSQL every enabled endpoint of the accounts with due
// deliveries is locked (FOR NO KEY UPDATE SKIP LOCKED, lockDueAccounts)
// before their leases are counted, so two dispatchers never count the
// same free slot of an account; an account another dispatcher is
// claiming for is left to it. SQLite serialises writers. It is the
// dispatcher's operation, not a user's.
func (s *Store) ClaimWebhooks(ctx context.Context, c WebhookClaim) (ClaimedWebhooks, error) {
	shares := claimShares{limit: c.Limit, reserve: c.Reserve,
		endpointCap: s.WebhookEndpointConcurrency(), accountCap: s.WebhookAccountConcurrency()}
	var out ClaimedWebhooks
	err := s.write(ctx, func(tx *gorm.DB) error {
		// Read inside the transaction, not before the write queue (SQLite)
		// or the wait for a connection: a lease timed from before that
		// wait would leave the attempt less than the lease promises.
		now := s.Now()
		out = ClaimedWebhooks{}
		// On SQLite the transaction began IMMEDIATE, holding the
		// database's one write lock: no other dispatcher (of this process
		// or another) commits meanwhile, so one look is current. On
		// PostgreSQL the look comes after the locks, so that it counts
		// every lease another dispatcher committed before them.
		var accounts []string
		if !s.db.IsSQLite() {
			locked, err := lockDueAccounts(tx, now)
			if err != nil || len(locked) == 0 {
				return err
			}
			accounts = locked
		}
		look, err := lookForDue(tx, now, accounts, shares.endpointCap+1)
		if err != nil || len(look.due) == 0 {
			return err
		}
		take, heldBack := shares.allocate(look.due, look.endpointBusy, look.accountBusy)
		out.HeldBack = heldBack
		if !s.db.IsSQLite() {
			out.Jobs, err = leaseDueDeliveries(tx, now, look.due, take, c.Owner, now.Add(c.Lease))
			return err
		}
		ids, err := pickDeliveries(tx, now, look.due, take)
		if err != nil || len(ids) == 0 {
			return err
		}
		out.Jobs, err = leaseDeliveries(tx, ids, c.Owner, now.Add(c.Lease))
		return err
	})
	return out, err
}

// skipLocked makes a PostgreSQL query pass over rows another transaction
// has locked; SQLite's dialect drops it (its writers are serialised).
var skipLocked = clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}

// pendingLiteral selects pending deliveries with the status written out:
// idx_webhook_deliveries_pending is partial, and SQLite uses a partial
// index only for a query whose WHERE says what the index's does.
const pendingLiteral = "status = '" + DeliveryPending + "'"

// claimableSQL is what makes a delivery claimable, as SQL: pending, due
// at now, and under no unexpired lease. col qualifies its columns ("d."
// or ""), now is the time's placeholder (?, @now, $1), written twice.
func claimableSQL(col, now string) string {
	return col + pendingLiteral + " AND " + col + "next_attempt_at <= " + now +
		" AND (" + col + "lease_until IS NULL OR " + col + "lease_until <= " + now + ")"
}

// claimable narrows db to the claimable deliveries at now.
func claimable(db *gorm.DB, now time.Time) *gorm.DB {
	return db.Model(&WebhookDelivery{}).Where(claimableSQL("", "?"), now, now)
}

// claimLook is what a claim sees: the endpoints with due deliveries
// (dueEndpoints) and the deliveries in flight (inFlight).
type claimLook struct {
	due                       []dueEndpoint
	endpointBusy, accountBusy map[string]int
}

// lookForDue reads dueEndpoints and inFlight (of accounts, unless nil) in
// one query: a statement each was a round trip more for every claim.
func lookForDue(tx *gorm.DB, now time.Time, accounts []string, limit int) (claimLook, error) {
	var rows []struct {
		Busy                  int // 1: an inFlight row, 0: a dueEndpoints one
		EndpointID, AccountID string
		N                     int
	}
	err := tx.Raw("SELECT 0 AS busy, endpoint_id, account_id, due AS n, oldest FROM (?) AS e WHERE due > 0 "+
		"UNION ALL SELECT 1, endpoint_id, account_id, n, NULL FROM (?) AS f ORDER BY busy, oldest, endpoint_id",
		dueEndpoints(tx, now, accounts, limit), inFlight(tx, now, accounts)).Scan(&rows).Error
	look := claimLook{endpointBusy: map[string]int{}, accountBusy: map[string]int{}}
	for _, r := range rows {
		if r.Busy == 0 {
			look.due = append(look.due, dueEndpoint{EndpointID: r.EndpointID, AccountID: r.AccountID, Due: r.N})
			continue
		}
		look.endpointBusy[r.EndpointID] += r.N
		look.accountBusy[r.AccountID] += r.N
	}
	return look, err
}

// dueEndpoints selects the enabled endpoints (of accounts, unless nil)
// with their claimable deliveries (due; endpoint_id, account_id and the
// oldest due time), each with at most limit of them counted; lookForDue
// keeps those with some, the one with the oldest due delivery first. It
// reads the endpoints and, through idx_webhook_deliveries_pending, at
// most limit due deliveries of each (plus those under a lease, at most a
// cap's worth): a claim never takes more than the endpoint cap of one
// endpoint, so counting a hung account's whole backlog would cost every
// claim of every dispatcher for nothing. PostgreSQL runs the subqueries
// per endpoint row as a LATERAL would; ordering by the index's whole key
// keeps it from walking the (status, next_attempt_at) index instead,
// filtering on the endpoint.
func dueEndpoints(tx *gorm.DB, now time.Time, accounts []string, limit int) *gorm.DB {
	claimableOf := "FROM webhook_deliveries d WHERE d.endpoint_id = p.id AND " + claimableSQL("d.", "@now")
	endpoints := tx.Table("webhook_endpoints AS p").
		Select("p.id AS endpoint_id, p.account_id, "+
			"(SELECT COUNT(*) FROM (SELECT 1 "+claimableOf+" ORDER BY d.next_attempt_at, d.id LIMIT @limit) AS firsts) AS due, "+
			"(SELECT d.next_attempt_at "+claimableOf+" ORDER BY d.next_attempt_at, d.id LIMIT 1) AS oldest",
			map[string]any{"now": now, "limit": limit}).
		Where("p.enabled = ?", true)
	if accounts != nil {
		endpoints = endpoints.Where("p.account_id IN ?", accounts)
	}
	return endpoints
}

// inFlight selects the deliveries under an unexpired lease, counted per
// endpoint (n; endpoint_id, account_id), of accounts unless nil.
func inFlight(tx *gorm.DB, now time.Time, accounts []string) *gorm.DB {
	q := tx.Table("webhook_deliveries AS d").
		Select("d.endpoint_id, p.account_id, COUNT(*) AS n").
		Joins("JOIN webhook_endpoints p ON p.id = d.endpoint_id").
		Where("d.status = ? AND d.lease_until > ?", DeliveryPending, now)
	if accounts != nil {
		q = q.Where("p.account_id IN ?", accounts)
	}
	return q.Group("d.endpoint_id, p.account_id")
}

// pickDeliveries chooses, for each endpoint, its share of due
// deliveries, the oldest first, taking the endpoints in turn: the first
// of each, then the second of each, and so on.
func pickDeliveries(tx *gorm.DB, now time.Time, due []dueEndpoint, take map[string]int) ([]string, error) {
	var queues [][]string
	limit := 0
	for _, d := range due {
		n := take[d.EndpointID]
		if n == 0 {
			continue
		}
		var ids []string
		if err := claimable(tx, now).Clauses(skipLocked).Where("endpoint_id = ?", d.EndpointID).
			Order("next_attempt_at, id").Limit(n).Pluck("id", &ids).Error; err != nil {
			return nil, err
		}
		queues, limit = append(queues, ids), limit+len(ids)
	}
	return roundRobin(queues, limit), nil
}

// leaseDeliveries leases ids to owner until until and returns them as
// jobs.
func leaseDeliveries(tx *gorm.DB, ids []string, owner string, until time.Time) ([]DeliveryJob, error) {
	if err := tx.Model(&WebhookDelivery{}).Where("id IN ?", ids).
		Updates(map[string]any{"lease_owner": owner, "lease_until": until}).Error; err != nil {
		return nil, err
	}
	var jobs []DeliveryJob
	err := tx.Table("webhook_deliveries AS d").
		Select("d.id AS delivery_id, d.event_id, d.tries, e.type AS event_type, e.payload, d.endpoint_id, p.url, p.token, p.secret, p.previous_secret, p.previous_secret_until, p.headers").
		Joins("JOIN webhook_events e ON e.id = d.event_id").
		Joins("JOIN webhook_endpoints p ON p.id = d.endpoint_id").
		Where("d.id IN ?", ids).Order("d.next_attempt_at, d.id").Scan(&jobs).Error
	return jobs, err
}

// saturated selects the endpoints that have WebhookEndpointConcurrency
// deliveries or more under an unexpired lease.
func (s *Store) saturated(db *gorm.DB, now time.Time) *gorm.DB {
	return db.Model(&WebhookDelivery{}).Select("endpoint_id").
		Where("status = ? AND lease_until > ?", DeliveryPending, now).
		Group("endpoint_id").Having("COUNT(*) >= ?", s.WebhookEndpointConcurrency())
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
