package models

import (
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// rowInsert is a new row as createFolded writes it: its table's columns,
// the placeholders of their values (cast where PostgreSQL cannot infer the
// column's type from a SELECT list: timestamps, integers) and the values.
type rowInsert struct {
	table, columns, placeholders string
	args                         []any
}

// createFolded is createIn's transaction on PostgreSQL, for a create with
// a quota and nothing written beside the row (no then). Every statement of
// a create runs while the account's row lock is held, and every one was a
// round trip in which the lock's waiters waited (issue 24: under 64
// clients over 20 accounts, backends spent a quarter of their time idle in
// a transaction and a quarter waiting for an account's lock). Here the
// lock is one statement and the rest one more: the quota count, the
// insert (only under the quota), the version bump and the audit event.
//
// The count cannot join the lock's statement: under READ COMMITTED a
// statement reads with the snapshot it started with, from before the
// previous holder's commit, and 200 concurrent creates overran a quota of
// 150 that way. The second statement starts after the lock is granted, so
// it counts every create that held the lock before.
func (s *Store) createFolded(tx *gorm.DB, actor Actor, accountID, id string, c accountCreate) error {
	a, err := lockAccountForQuota(tx, accountID)
	if err != nil {
		return err
	}
	if c.check != nil {
		if err := c.check(tx, a); err != nil {
			return err
		}
	}
	ev, err := s.auditEvent(actor, accountID, c.resource, "created", []string{lrn(c.resource, id)}, c.details)
	if err != nil {
		return err
	}
	evArgs, err := auditEventArgs(&ev)
	if err != nil {
		return err
	}
	limit := c.quota.limit(a)
	args := make([]any, 0, 6+len(c.fold.args)+len(evArgs))
	args = append(args, accountID, c.quota.table)
	args = append(args, c.fold.args...)
	args = append(args, limit, accountID, newAccountVersion())
	args = append(args, evArgs...)
	var res struct {
		Used    int64
		Created bool
	}
	err = tx.Raw(foldedCreateSQL(c.fold), args...).Scan(&res).Error
	if t, ok := tx.Dialector.(gorm.ErrorTranslator); ok && err != nil {
		// An error met reading the rows reaches Scan untranslated.
		err = t.Translate(err)
	}
	switch {
	case errors.Is(err, gorm.ErrDuplicatedKey) && c.duplicate != nil:
		return c.duplicate
	case err != nil:
		return err
	case res.Created:
		return nil
	}
	if err := checkQuota(res.Used, limit, c.quota.what); err != nil {
		return err
	}
	return fmt.Errorf("create %s: nothing inserted under the quota (%d of %d)", c.resource, res.Used, limit)
}

// foldedCreateSQL is createFolded's second statement. Its arguments: the
// account and the quota's table (the count), the row's values, the quota,
// the account and its new version, the audit event's values.
func foldedCreateSQL(r *rowInsert) string {
	return "WITH usage AS (SELECT COALESCE((SELECT used FROM account_usage WHERE account_id = ? AND resource = ?), 0) AS used), " +
		"created AS (INSERT INTO " + r.table + " (" + r.columns + ") SELECT " + r.placeholders +
		" FROM usage WHERE used < ?::bigint RETURNING 1), " +
		"version AS (INSERT INTO account_versions (account_id, version) SELECT ?, ?::bigint FROM created " +
		"ON CONFLICT (account_id) DO UPDATE SET version = excluded.version), " +
		"event AS (INSERT INTO audit_events (" + auditEventColumns + ") " +
		"SELECT ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM created) " +
		"SELECT used, EXISTS (SELECT 1 FROM created) AS created FROM usage"
}

// lockAccountForQuota is lockAccountCounting's lock without its count, on
// PostgreSQL.
func lockAccountForQuota(tx *gorm.DB, accountID string) (*Account, error) {
	var a Account
	err := tx.Raw("SELECT id, status, billing_address_valid, filesystem_quota, ruleset_quota, fabric_partition_quota "+
		"FROM accounts WHERE id = ? FOR UPDATE", accountID).Row().Scan(&a.ID, &a.Status, &a.BillingAddressValid,
		&a.FilesystemQuota, &a.RulesetQuota, &a.FabricPartitionQuota)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, NotFound("account", accountID)
	}
	return &a, err
}
