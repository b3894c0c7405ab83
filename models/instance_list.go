package models

import (
	"context"
	"time"
)

// InstancesEncoded is Instances encoded by enc, for the API's instance
// list: the list is read and encoded once per change of the account's
// objects, or sooner when an instance's status ends (a booting one turns
// active, a terminating one leaves the list), which no write records. The
// bytes are shared with every caller, who must not modify them.
func (s *Store) InstancesEncoded(ctx context.Context, actor Actor, enc *ListEncoding[InstanceDetail]) ([]byte, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.instances.encoded(ctx, s, accountID, func() ([]InstanceDetail, error) {
		return s.loadInstances(ctx, accountID)
	}, enc)
}

// loadInstances reads the account's instances that are not terminated by
// now, oldest first. The list stops being what a read would answer
// without any write at instanceListExpiry.
func (s *Store) loadInstances(ctx context.Context, accountID string) ([]InstanceDetail, error) {
	db := s.read(ctx)
	// One instant for the filter and the statuses, so that a terminating
	// row is either left out or shown terminating, never shown terminated.
	now := s.Now()
	rows, err := findInstances(db.Raw(liveInstancesSQL(instanceColumns)+"SELECT * FROM live "+
		"WHERE NOT (status = ? OR (status = ? AND status_until <= ?)) ORDER BY created_at, id",
		accountID, accountID, now, InstanceTerminated, InstanceTerminating, now))
	if err != nil {
		return nil, err
	}
	return detailsAt(db, rows, now)
}

// instanceListExpiry is the earliest end of a transitional status among the
// resolved instances (all after the instant they were resolved at), or
// zero when none has one.
func instanceListExpiry(list []InstanceDetail) time.Time {
	var expires time.Time
	for i := range list {
		if until := list[i].StatusUntil; until != nil && (expires.IsZero() || until.Before(expires)) {
			expires = *until
		}
	}
	return expires
}

// liveInstancesSQL names "live" the account's instances that are not
// terminated at an instant, with columns (of instances): those never
// terminated (terminated_at NULL) and those terminating until after it.
// Its arguments: the account twice, then the instant. Each half is a range
// of idx_instances_live, so a read costs the instances it finds, not every
// instance the account ever had: terminated ones keep their rows, and
// reading past them made the lists slower the longer a load test ran
// (issue 24). Materialised, so that SQLite's planner does not lead with an
// index that gives the order of the rows and filter the whole history.
func liveInstancesSQL(columns string) string {
	return "WITH live AS MATERIALIZED (SELECT " + columns + " FROM instances WHERE account_id = ? AND terminated_at IS NULL " +
		"UNION ALL SELECT " + columns + " FROM instances WHERE account_id = ? AND terminated_at > ?) "
}
