package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"cloudplane/models/database"
)

// rowInsert is a new row as createFolded writes it: its table's columns,
// the placeholders of their values (cast where PostgreSQL cannot infer the
// column's type from a SELECT list: timestamps, integers) and the values.
type rowInsert struct {
	table, columns, placeholders string
	args                         []any
}

// valuesSQL is r's INSERT with VALUES and numbered placeholders, as
// createIn sends it past GORM.
func (r *rowInsert) valuesSQL() string {
	return database.Numbered("INSERT INTO " + r.table + " (" + r.columns + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(r.args)), ", ") + ")")
}

// createFolded is createIn's write on PostgreSQL, for a create with a
// quota and nothing written beside the row (no then). Every statement of a
// create ran while the account's row lock was held, and each was a round
// trip in which the lock's waiters waited (issue 24: under 64 clients over
// 20 accounts, backends spent a quarter of their time idle in a
// transaction and a quarter waiting for an account's lock). Here BEGIN and
// the lock are one round trip, and one statement with COMMIT the other:
// the quota count, the insert (only under the quota), the version bump
// and the audit event (database.DB.WriteAfterLock).
//
// The count cannot join the lock's statement: under READ COMMITTED a
// statement reads with the snapshot it started with, from before the
// previous holder's commit, and 200 concurrent creates overran a quota of
// 150 that way. The second statement starts after the lock is granted, so
// it counts every create that held the lock before.
func (s *Store) createFolded(ctx context.Context, accountID string, c accountCreate, event auditRow) error {
	var limit int
	lock := database.Statement{SQL: lockAccountForQuotaSQL, Args: []any{accountID}}
	change := func(row database.Row) (database.Statement, error) {
		var a Account
		err := row.Scan(&a.ID, &a.Status, &a.BillingAddressValid, &a.FilesystemQuota, &a.RulesetQuota, &a.FabricPartitionQuota)
		if errors.Is(err, sql.ErrNoRows) {
			return database.Statement{}, NotFound("account", accountID)
		} else if err != nil {
			return database.Statement{}, err
		}
		if c.check != nil {
			if err := c.check(nil, &a); err != nil {
				return database.Statement{}, err
			}
		}
		limit = c.quota.limit(&a)
		args := make([]any, 0, 5+len(c.fold.args)+len(event.args))
		args = append(args, accountID, c.quota.table)
		args = append(args, c.fold.args...)
		args = append(args, limit, newAccountVersion())
		args = append(args, event.args...)
		return database.Statement{SQL: foldedCreateSQL(c.fold), Args: args}, nil
	}
	done := func(row database.Row) error {
		var used int64
		var created bool
		if err := row.Scan(&used, &created); err != nil || created {
			return err
		}
		if err := checkQuota(used, limit, c.quota.what); err != nil {
			return err
		}
		return fmt.Errorf("create %s: nothing inserted under the quota (%d of %d)", c.resource, used, limit)
	}
	err := s.db.WriteAfterLock(ctx, accountID, lock, change, done)
	if errors.Is(err, gorm.ErrDuplicatedKey) && c.duplicate != nil {
		return c.duplicate
	}
	return s.writeError(ctx, err)
}

// foldedCreateSQL is createFolded's second statement. Its arguments: the
// account ($1) and the quota's table, the row's values, the quota, the
// account's new version, the audit event's values.
func foldedCreateSQL(r *rowInsert) string {
	return database.Numbered("WITH usage AS (SELECT COALESCE((SELECT used FROM account_usage WHERE account_id = ? AND resource = ?), 0) AS used), " +
		"created AS (INSERT INTO " + r.table + " (" + r.columns + ") SELECT " + r.placeholders +
		" FROM usage WHERE used < ?::bigint RETURNING 1), " +
		"version AS (INSERT INTO account_versions (account_id, version) SELECT $1, ?::bigint FROM created " +
		replaceAccountVersion + "), " +
		"event AS (INSERT INTO audit_events (" + auditEventColumns + ") " +
		auditEventValuesSQL + " FROM created) " +
		"SELECT used, EXISTS (SELECT 1 FROM created) AS created FROM usage")
}
