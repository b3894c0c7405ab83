package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// migrateLockKey is the PostgreSQL advisory lock Migrate holds: "cloudpla"
// in ASCII, a number no other user of the database is likely to pick.
const migrateLockKey int64 = 0x636c6f7564706c61

// dialect is what the migration runner does differently per database.
type dialect struct {
	name string
	// columnsSQL lists schema_migrations' columns, none if it is missing.
	columnsSQL string
	// createTable makes schema_migrations as GORM (gormigrate) made it up
	// to release 0001, so that both kinds of database end up alike.
	createTable  string
	addAppliedAt string
	// lock runs fn on one connection while holding the migration lock,
	// or readies the connection for inTx to take the lock per step.
	lock func(ctx context.Context, conn *sql.Conn, fn func() error) error
	// check runs inside a step's transaction before it commits.
	check func(ctx context.Context, tx *sql.Tx) error
}

func dialectOf(db *gorm.DB) (*dialect, error) {
	switch name := db.Name(); name {
	case "sqlite":
		return &sqliteDialect, nil
	case "postgres":
		return &postgresDialect, nil
	default:
		return nil, fmt.Errorf("no migrations for database %q", name)
	}
}

var postgresDialect = dialect{
	name: "postgres",
	columnsSQL: "SELECT column_name FROM information_schema.columns " +
		"WHERE table_schema = current_schema() AND table_name = 'schema_migrations'",
	createTable:  "CREATE TABLE IF NOT EXISTS schema_migrations (id varchar(64) NOT NULL, PRIMARY KEY (id))",
	addAppliedAt: "ALTER TABLE schema_migrations ADD COLUMN applied_at timestamptz",
	lock:         advisoryLock,
}

var sqliteDialect = dialect{
	name:         "sqlite",
	columnsSQL:   "SELECT name FROM pragma_table_info('schema_migrations')",
	createTable:  "CREATE TABLE IF NOT EXISTS `schema_migrations` (`id` text,PRIMARY KEY (`id`))",
	addAppliedAt: "ALTER TABLE schema_migrations ADD COLUMN applied_at datetime",
	lock:         foreignKeysOff,
	check:        foreignKeyCheck,
}

// q rewrites ? placeholders as PostgreSQL's $n.
func (d *dialect) q(query string) string {
	if d.name != "postgres" {
		return query
	}
	return Numbered(query)
}

// Numbered replaces each ? of query by $1, $2 and so on, in order: the
// placeholders of PostgreSQL, for SQL sent around GORM. query must have no
// other question mark.
func Numbered(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// withLock runs fn on one connection of db under the dialect's lock.
func (d *dialect) withLock(ctx context.Context, db *gorm.DB, fn func(conn *sql.Conn) error) error {
	return withConn(ctx, db, func(conn *sql.Conn) error {
		return d.lock(ctx, conn, func() error { return fn(conn) })
	})
}

// bootstrap creates schema_migrations, or adds the applied_at column to
// the one a release before the runner made.
func (d *dialect) bootstrap(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, d.createTable); err != nil {
		return err
	}
	cols, err := strings1(ctx, tx, d.columnsSQL)
	if err != nil || slices.Contains(cols, "applied_at") {
		return err
	}
	_, err = tx.ExecContext(ctx, d.addAppliedAt)
	return err
}

// inTx runs fn in a transaction on conn. On SQLite the DSN makes BEGIN
// IMMEDIATE, which takes the database's write lock: that is the migration
// lock there. SQLite gives up waiting for it after the busy timeout, so a
// busy BEGIN is retried until MigrateLockWait has passed.
func (d *dialect) inTx(ctx context.Context, conn *sql.Conn, fn func(tx *sql.Tx) error) error {
	deadline := time.Now().Add(MigrateLockWait)
	tx, err := conn.BeginTx(ctx, nil)
	for err != nil && (IsBusy(err) || IsConflict(err)) && time.Now().Before(deadline) {
		tx, err = conn.BeginTx(ctx, nil)
	}
	if err != nil {
		return lockWaitError(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// advisoryLock holds PostgreSQL's session advisory lock on conn around fn.
// Taking it before schema_migrations exists is what lets processes start
// together on a fresh database: concurrent CREATE TABLE IF NOT EXISTS
// races in pg_type otherwise.
func advisoryLock(ctx context.Context, conn *sql.Conn, fn func() error) error {
	lockCtx, cancel := context.WithTimeout(ctx, MigrateLockWait)
	_, err := conn.ExecContext(lockCtx, "SELECT pg_advisory_lock($1)", migrateLockKey)
	cancel()
	if err != nil {
		// Whether the lock was granted as the wait was cancelled is
		// unknown: drop the connection, which releases it.
		discard(conn)
		return lockWaitError(err)
	}
	err = fn()
	if _, uerr := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLockKey); uerr != nil {
		discard(conn)
	}
	return err
}

// foreignKeysOff turns SQLite's foreign key enforcement off on conn around
// fn, as a table rebuild needs (it cannot change inside a transaction);
// the runner checks the keys itself before each commit.
func foreignKeysOff(ctx context.Context, conn *sql.Conn, fn func() error) error {
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	err := fn()
	// The connection goes back to the pool: it must enforce keys again.
	if _, ferr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON"); ferr != nil {
		discard(conn)
	}
	return err
}

// foreignKeyCheck fails with the rows whose references are broken.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		bad = append(bad, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("foreign key check: %s", strings.Join(bad, "; "))
	}
	return nil
}

// discard makes database/sql close conn instead of pooling it.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
}

func lockWaitError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || IsBusy(err) || IsConflict(err) {
		return fmt.Errorf("another process kept the database's migration lock for over %s: %w", MigrateLockWait, err)
	}
	return err
}
