package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Helpers for the objects an account owns (filesystems, rulesets): finding
// one by id, counting them against a quota, and telling whether a running
// instance holds one.

// takeOwned loads into dst the row of dst's table with id in the account,
// or answers gorm.ErrRecordNotFound. Malformed ids never reach the
// database.
func takeOwned(tx *gorm.DB, dst any, accountID, id string) error {
	if !IsID(id) {
		return gorm.ErrRecordNotFound
	}
	return tx.Where("account_id = ? AND id = ?", accountID, id).Take(dst).Error
}

// AccountUsage is how many rows of a quota-bound table (Resource, the
// table's name) an account owns. Triggers keep it on every insert and
// delete (migration 0010), so a quota check reads one row instead of
// counting them all.
type AccountUsage struct {
	AccountID string `gorm:"primaryKey;size:32"`
	Resource  string `gorm:"primaryKey;size:32"`
	Used      int64  `gorm:"not null"`
}

// TableName keeps GORM from pluralising it.
func (AccountUsage) TableName() string { return "account_usage" }

// lockAccountCounting is lockAccount that also reads how many rows of
// table the account owns, for a quota check: read under the lock, so that
// concurrent creates count each other. It reads only the status, billing
// and quota columns, without GORM: it runs in SQLite's one writer on
// every create. SQLite reads the count in the lock's statement; on
// PostgreSQL (READ COMMITTED) that statement would not see what the
// previous lock holder inserted, so the count is a statement of its own.
func lockAccountCounting(tx *gorm.DB, accountID, table string) (*Account, int64, error) {
	raw := rawOf(tx)
	postgres := tx.Dialector.Name() == "postgres"
	var row *sql.Row
	if postgres {
		row = raw.queryRow(lockAccountForQuotaSQL, accountID)
	} else {
		row = raw.queryRow(lockAccountCountingSQL, table, accountID)
	}
	var a Account
	var used sql.NullInt64
	dest := []any{&a.ID, &a.Status, &a.BillingAddressValid, &a.FilesystemQuota, &a.RulesetQuota, &a.FabricPartitionQuota}
	if !postgres {
		dest = append(dest, &used)
	}
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, NotFound("account", accountID)
	} else if err != nil {
		return nil, 0, err
	}
	if postgres {
		err = raw.queryRow(accountUsageSQL, accountID, table).Scan(&used)
		if errors.Is(err, sql.ErrNoRows) { // the account never had one
			err = nil
		}
	}
	return &a, used.Int64, err
}

// The statements of lockAccountCounting, numbered: they are sent past
// GORM. lockAccountForQuotaSQL is its lock on PostgreSQL.
const (
	accountQuotaColumns    = "id, status, billing_address_valid, filesystem_quota, ruleset_quota, fabric_partition_quota"
	lockAccountCountingSQL = "SELECT " + accountQuotaColumns + ", (SELECT used FROM account_usage " +
		"WHERE account_id = accounts.id AND resource = $1) FROM accounts WHERE id = $2"
	lockAccountForQuotaSQL = "SELECT " + accountQuotaColumns + " FROM accounts WHERE id = $1 FOR UPDATE"
	accountUsageSQL        = "SELECT used FROM account_usage WHERE account_id = $1 AND resource = $2"
)

// checkQuota fails with CodeQuotaExceeded when the account already has
// quota objects (n of them, counted by lockAccountCounting).
func checkQuota(n int64, quota int, what string) error {
	if n < int64(quota) {
		return nil
	}
	return &Error{Code: CodeQuotaExceeded,
		Message:    fmt.Sprintf("The account has reached its quota of %d %s", quota, what),
		Suggestion: fmt.Sprintf("Delete %s you no longer need, or contact support to raise the quota", what)}
}

// heldSQL is an SQL condition, true when the attachment table (instance_id,
// column) links the object whose id is idExpr to an instance that holds
// it. It takes one argument: instanceInUseStatuses.
func heldSQL(table, column, idExpr string) string {
	return "EXISTS (SELECT 1 FROM " + table + " a JOIN instances i ON i.id = a.instance_id" +
		" WHERE a." + column + " = " + idExpr + " AND i.status IN ?)"
}

// heldByRunningInstance reports whether an instance that holds its
// attachments (booting, active or unhealthy) is linked to id by table.
func heldByRunningInstance(tx *gorm.DB, table, column, id string) (bool, error) {
	var held bool
	err := tx.Raw("SELECT "+heldSQL(table, column, "?"), id, instanceInUseStatuses).Scan(&held).Error
	return held, err
}

// heldKind describes one kind of object that an account owns and that
// instances hold through an attachment table.
type heldKind struct {
	resource string // audit resource name and LRN kind
	table    string // attachment table: (instance_id, column)
	column   string
	notFound func(id string) error
	inUse    func(name string) error
	// version is the column behind the kind's ETag, which a delete's
	// precondition compares; "" for kinds without one.
	version string
}

// heldObject is a row of a heldKind.
type heldObject interface {
	describe() (id, name, region string)
}

// versioned is a heldObject whose kind has a version, behind its ETag.
type versioned interface {
	currentVersion() int64
}

// deleteHeld deletes the account's object with id into row, unless an
// instance that holds it (booting, active or unhealthy) is attached to it,
// and records a "deleted" audit event. Attachments to instances that no
// longer hold it go with it, so none points at nothing. When pre does not
// hold (k must have a version then) it fails with CodePreconditionFailed
// and deletes nothing.
func (s *Store) deleteHeld(ctx context.Context, actor Actor, id string, row heldObject, k heldKind, pre Precondition) error {
	accountID, err := actor.operates()
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		// The account lock keeps a concurrent launch from attaching it
		// between the check and the delete.
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		if err := takeOwned(tx, row, accountID, id); errors.Is(err, gorm.ErrRecordNotFound) {
			return k.notFound(id)
		} else if err != nil {
			return err
		}
		rowID, name, region := row.describe()
		if pre.Set() && k.version == "" {
			return fmt.Errorf("delete %s: a precondition on a kind without a version", k.resource)
		}
		if version, ok := row.(versioned); ok && !pre.holds(version.currentVersion()) {
			return errPreconditionFailed
		}
		if held, err := heldByRunningInstance(tx, k.table, k.column, rowID); err != nil {
			return err
		} else if held {
			return k.inUse(name)
		}
		if err := tx.Exec("DELETE FROM "+k.table+" WHERE "+k.column+" = ?", rowID).Error; err != nil {
			return err
		}
		// The version is compared again by the DELETE itself: a write that
		// committed since the read above (PostgreSQL) makes it match no row.
		res := tx
		if k.version != "" {
			res = pre.where(tx, k.version)
		}
		if res = res.Delete(row); res.Error != nil {
			return res.Error
		} else if res.RowsAffected == 0 && pre.Set() {
			return errPreconditionFailed
		} else if res.RowsAffected == 0 {
			return k.notFound(id)
		}
		return s.audit(tx, actor, accountID, k.resource, "deleted", []string{lrn(k.resource, rowID)},
			map[string]any{"name": name, "region": region})
	})
}
