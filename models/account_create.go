package models

import (
	"context"
	"errors"

	"gorm.io/gorm"

	"cloudplane/models/database"
)

// accountCreate is what differs between the creates of objects an account
// owns; createInAccount runs the sequence they share.
type accountCreate struct {
	resource string // audit resource name and LRN kind
	// quota, if any, is checked under the account's lock: nil for
	// resources without one, whose creates do not lock the account.
	quota *accountQuota
	// check, if any, runs in the transaction before the quota check and
	// the insert. a is the locked account, nil without a quota.
	check func(tx *gorm.DB, a *Account) error
	// duplicate answers a duplicate key on the insert: the unique index
	// decides between concurrent creates of one name. nil leaves the
	// error to translate.
	duplicate error
	// then writes what goes with the row (comments, outbox rows) after
	// it, before the audit event.
	then    func(tx *gorm.DB) error
	details map[string]any // of the audit event
	// fold, if any, is the row as createFolded writes it on PostgreSQL,
	// for a create with a quota and no then, whose check does not use tx
	// (it gets nil).
	fold *rowInsert
	// alone, if any, is the whole create as one statement on PostgreSQL,
	// the row and what goes with it (then's writes) and the audit event,
	// for a create with no quota and no check (database.DB.ExecAlone). It
	// writes nothing, and changes no row, if the account is gone.
	alone func(event auditRow) (database.Statement, error)
}

// accountQuota bounds how many rows of a table an account owns.
type accountQuota struct {
	table string // as account_usage names it
	what  string // the rows, in CodeQuotaExceeded's message
	limit func(a *Account) int
}

var (
	filesystemQuota = &accountQuota{table: "filesystems", what: "filesystems",
		limit: func(a *Account) int { return a.FilesystemQuota }}
	rulesetQuota = &accountQuota{table: "firewall_rulesets", what: "firewall rulesets",
		limit: func(a *Account) int { return a.RulesetQuota }}
	fabricPartitionQuota = &accountQuota{table: "fabric_partitions", what: "fabric partitions",
		limit: func(a *Account) int { return a.FabricPartitionQuota }}
)

// createInAccount creates one object in the actor's own account. It fails
// with CodeForbidden for an actor without one, CodeInsufficientScope for a
// viewer, then with validate's error;
// newRow builds the row from the account's id and the new object's id,
// with what differs for its resource (c). In one write transaction it
// locks the account and counts c.quota's table (the lock is what makes
// concurrent creates count each other), runs c.check, fails with
// CodeQuotaExceeded at the quota, inserts the row (a duplicate key answers
// c.duplicate), runs c.then and records a "<resource> created" audit
// event, which gives the account a new version: its cached lists
// (Filesystems) are read again.
func createInAccount[R any](ctx context.Context, s *Store, actor Actor, validate func() error,
	newRow func(accountID, id string) (row *R, c accountCreate, err error)) (*R, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	return createIn(ctx, s, actor, accountID, validate, newRow)
}

// createIn is createInAccount in accountID, whose permission the caller
// has checked.
func createIn[R any](ctx context.Context, s *Store, actor Actor, accountID string, validate func() error,
	newRow func(accountID, id string) (row *R, c accountCreate, err error)) (*R, error) {
	if err := validate(); err != nil {
		return nil, err
	}
	id := NewID()
	row, c, err := newRow(accountID, id)
	if err != nil {
		return nil, err
	}
	// Built before the write waits in SQLite's writer queue, which is
	// what every write waits for: c.fold's insert and the audit event.
	var insert string
	if c.fold != nil {
		insert = c.fold.valuesSQL()
	}
	event, err := s.auditRow(actor, accountID, c.resource, "created", []string{lrn(c.resource, id)}, c.details)
	if err != nil {
		return nil, err
	}
	if c.alone != nil && c.quota == nil && c.check == nil && !s.db.IsSQLite() {
		statement, err := c.alone(event)
		if err != nil {
			return nil, err
		}
		n, err := s.db.ExecAlone(ctx, statement)
		if err != nil {
			return nil, s.writeError(ctx, err)
		}
		if n == 0 { // the statement wrote only if the account is there
			return nil, NotFound("account", accountID)
		}
		return row, nil
	}
	if c.fold != nil && c.quota != nil && c.then == nil && !s.db.IsSQLite() {
		if err := s.createFolded(ctx, accountID, c, event); err != nil {
			return nil, err
		}
		return row, nil
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		var a *Account
		var used int64
		if c.quota != nil {
			var err error
			if a, used, err = lockAccountCounting(tx, accountID, c.quota.table); err != nil {
				return err
			}
		}
		if c.check != nil {
			if err := c.check(tx, a); err != nil {
				return err
			}
		}
		if c.quota != nil {
			if err := checkQuota(used, c.quota.limit(a), c.quota.what); err != nil {
				return err
			}
		}
		err := insertRow(tx, row, insert, c.fold)
		if errors.Is(err, gorm.ErrDuplicatedKey) && c.duplicate != nil {
			return c.duplicate
		} else if err != nil {
			return err
		}
		if c.then != nil {
			if err := c.then(tx); err != nil {
				return err
			}
		}
		return event.write(tx)
	})
	if err != nil {
		return nil, err
	}
	return row, nil
}

// insertRow inserts row: with insert, the statement of fold, when the
// create has one, else through GORM.
func insertRow(tx *gorm.DB, row any, insert string, fold *rowInsert) error {
	if fold == nil {
		return tx.Create(row).Error
	}
	return rawOf(tx).exec(insert, fold.args...)
}
