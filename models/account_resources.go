package models

import (
	"context"
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

// lockAccountCounting is lockAccount that also counts the account's rows
// in table, for a quota check. Counting under the lock is what makes
// concurrent creates count each other.
//
// On SQLite the count is a subquery of the lock's statement, one round
// trip fewer: the write transaction began after every earlier write
// committed, so it sees them all. PostgreSQL needs its own statement: a
// statement sees the data as of its start (READ COMMITTED), and FOR
// UPDATE refreshes only the locked row once the lock is granted, so a
// count in the locking statement misses what the previous holder inserted
// (TestConcurrentCreatesAllSucceed saw 165 creates under a quota of 150).
func lockAccountCounting(tx *gorm.DB, accountID, table string) (*Account, int64, error) {
	count := "(SELECT count(*) FROM " + table + " WHERE account_id = accounts.id)"
	if tx.Dialector.Name() == "postgres" {
		count = "0"
	}
	var row struct {
		Account
		Used int64
	}
	err := tx.Table("accounts").Clauses(forUpdate).Select("accounts.*, "+count+" AS used").
		Where("accounts.id = ?", accountID).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, 0, NotFound("account", accountID)
	} else if err != nil || tx.Dialector.Name() != "postgres" {
		return &row.Account, row.Used, err
	}
	err = tx.Table(table).Where("account_id = ?", accountID).Count(&row.Used).Error
	return &row.Account, row.Used, err
}

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
}

// heldObject is a row of a heldKind.
type heldObject interface {
	describe() (id, name, region string)
}

// deleteHeld deletes the account's object with id into row, unless an
// instance that holds it (booting, active or unhealthy) is attached to it,
// and records a "deleted" audit event. Attachments to instances that no
// longer hold it go with it, so none points at nothing.
func (s *Store) deleteHeld(ctx context.Context, actor Actor, id string, row heldObject, k heldKind) error {
	accountID, err := actor.ownAccount()
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
		if held, err := heldByRunningInstance(tx, k.table, k.column, rowID); err != nil {
			return err
		} else if held {
			return k.inUse(name)
		}
		if err := tx.Exec("DELETE FROM "+k.table+" WHERE "+k.column+" = ?", rowID).Error; err != nil {
			return err
		}
		if err := tx.Delete(row).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, k.resource, "deleted", []string{lrn(k.resource, rowID)},
			map[string]any{"name": name, "region": region})
	})
}
