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
	rows, err := findInstances(db.Raw("SELECT "+instanceColumns+" FROM instances WHERE account_id = ? "+
		"AND NOT (status = ? OR (status = ? AND status_until <= ?)) ORDER BY created_at, id",
		accountID, InstanceTerminated, InstanceTerminating, now))
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
