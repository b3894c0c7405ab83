package models

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"
)

// AuditPageStatement returns the SQL and arguments of the query AuditEvents
// runs for in, after the cursor (at, id) when id is not empty.
func AuditPageStatement(db *gorm.DB, accountID string, in AuditEventsInput, at time.Time, id string) (string, []any, error) {
	if err := in.Validate(); err != nil {
		return "", nil, err
	}
	var after *auditCursor
	if id != "" {
		after = &auditCursor{at: at, id: id}
	}
	stmt := auditPageQuery(db.Session(&gorm.Session{DryRun: true}), accountID, &in, after).Find(&[]AuditEvent{}).Statement
	return stmt.SQL.String(), stmt.Vars, nil
}

// RunInPasswordSlot runs fn in one of the store's password slots, as
// every bcrypt hash and comparison does.
func (s *Store) RunInPasswordSlot(ctx context.Context, fn func()) error {
	return s.passwords.run(ctx, inTurn, fn)
}

// LockAccountAndWait runs a write that locks the account, reports that it
// holds the lock on held, and waits for release before it commits.
func (s *Store) LockAccountAndWait(ctx context.Context, accountID string, held chan<- struct{}, release <-chan struct{}) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		held <- struct{}{}
		<-release
		return nil
	})
}

// Write is the store's write, for tests of its plumbing.
func (s *Store) Write(ctx context.Context, fn func(tx *gorm.DB) error) error { return s.write(ctx, fn) }

// MaxSetupLinks is how many of the newest setup links work at once.
const MaxSetupLinks = maxSetupLinks

// RunInPasswordSlotAsKnownDevice is RunInPasswordSlot in the line of
// sign-ins from known devices, which is served first.
func (s *Store) RunInPasswordSlotAsKnownDevice(ctx context.Context, fn func()) error {
	return s.passwords.run(ctx, knownDeviceFirst, fn)
}

// PasswordWaiters is how many callers wait for a password slot.
func (s *Store) PasswordWaiters() int {
	s.passwords.mu.Lock()
	defer s.passwords.mu.Unlock()
	return s.passwords.lines[0].Len() + s.passwords.lines[1].Len()
}

// FreePublicIP is freePublicIP, for its benchmark.
var FreePublicIP = freePublicIP

// LiveInstancesSQL is liveInstancesSQL, for EXPLAIN.
var LiveInstancesSQL = liveInstancesSQL

// InUseByPlaceSQL is inUseByPlaceSQL with its statuses written out, for
// EXPLAIN.
var InUseByPlaceSQL = strings.Replace(inUseByPlaceSQL, "IN ?", "IN (?, ?, ?)", 1)

// InstanceInUseStatuses are the arguments of InUseByPlaceSQL.
var InstanceInUseStatuses = instanceInUseStatuses
