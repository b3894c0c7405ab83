package models

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"math/rand/v2"

	"gorm.io/gorm"
)

// AccountVersion changes with every change to an account's objects: audit
// replaces it in the transaction of the change, and every change writes an
// audit event. A reader that read version v before reading a list, and
// later reads v again, therefore knows that the list is unchanged, whichever
// process or replica made the changes in between; that is what makes
// accountCache exact at the cost of one indexed read.
//
// The version is random rather than a counter so that only equality has a
// meaning: a database restored from a backup cannot bring back a version a
// cache holds for other data. It lives in its own table, not on accounts,
// so that bumping it last in a transaction never waits behind lockAccount's
// row lock in an order that could deadlock.
type AccountVersion struct {
	AccountID string `gorm:"primaryKey;size:32"`
	Version   int64  `gorm:"not null"`
}

// bumpAccountVersion gives the account a new version inside tx. A change
// that alters what an account's lists show without calling audit must call
// it too.
func bumpAccountVersion(tx *gorm.DB, accountID string) error {
	return rawOf(tx).exec("INSERT INTO account_versions (account_id, version) VALUES ($1, $2) "+
		replaceAccountVersion, accountID, newAccountVersion())
}

// replaceAccountVersion ends every insert into account_versions: an
// account's first change creates its row, later ones replace the version.
const replaceAccountVersion = "ON CONFLICT (account_id) DO UPDATE SET version = excluded.version"

// newAccountVersion is a version no reader can have cached: random, and
// never 0, the version of an account without a row.
func newAccountVersion() int64 { return 1 + rand.Int64N(math.MaxInt64) }

// accountVersionSQL reads an account's version; $1 binds positionally on
// both SQLite and PostgreSQL.
const accountVersionSQL = "SELECT version FROM account_versions WHERE account_id = $1"

// queryAccountVersion reads the account's current version, 0 for an
// account never changed. It is on every cached read's path, so it skips
// GORM; accountVersion (account_version_batch.go) calls it.
func (s *Store) queryAccountVersion(ctx context.Context, accountID string) (int64, error) {
	s.versions.queries.Add(1)
	stmt, err := s.db.Prepare(ctx, accountVersionSQL)
	if err != nil {
		return 0, err
	}
	qctx, err := s.versionQueryContext(ctx)
	if err != nil {
		return 0, err
	}
	var v int64
	err = stmt.QueryRowContext(qctx, accountID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// AccountChanged gives the account a new version, so that cached lists of
// its objects are read again. The store's operations do this themselves;
// it is for rows written around them (test fixtures, manual repairs).
func (s *Store) AccountChanged(ctx context.Context, accountID string) error {
	return s.write(ctx, func(tx *gorm.DB) error { return bumpAccountVersion(tx, accountID) })
}
