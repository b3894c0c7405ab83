package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"cloudplane/models/database/migrations"
)

// MigrateLockWait bounds how long Migrate waits for another process that
// is migrating the same database. A step that rebuilds a large table
// can take minutes; a process that waits longer gives up and says so.
var MigrateLockWait = 10 * time.Minute

// MigrationState is one step of the schema's history and whether the
// database has run it. AppliedAt is nil for a pending step, and for 0001
// on databases created before migrations recorded when they ran.
type MigrationState struct {
	ID        string
	Applied   bool
	AppliedAt *time.Time
	// Unknown marks a step the database has run that this binary lacks.
	Unknown bool
}

// ErrNewerDatabase is returned when the database has run steps this
// binary does not know: a newer release migrated it.
var ErrNewerDatabase = errors.New("the database was migrated by a newer cloudplane")

// Migrate brings the schema up to date by running, in order, each step of
// migrations/ the database has not run, each in a transaction that
// also records it in schema_migrations. It holds a lock meanwhile (an
// advisory lock on PostgreSQL, the write lock on SQLite), so any number of
// processes may call it at once: each step runs once, and every caller
// returns when the schema is current. A failed step is rolled back and
// reported with the step's name; the steps before it stay applied.
func (db *DB) Migrate(ctx context.Context) error {
	return migrateTo(ctx, db.gorm, "")
}

// MigrateTo is Migrate stopping after the step named last: it builds a
// database as an older release left it (the upgrade tests do).
func (db *DB) MigrateTo(ctx context.Context, last string) error {
	return migrateTo(ctx, db.gorm, last)
}

func migrateTo(ctx context.Context, db *gorm.DB, last string) error {
	d, err := dialectOf(db)
	if err != nil {
		return err
	}
	steps, err := migrations.Steps(d.name)
	if err != nil {
		return err
	}
	return d.withLock(ctx, db, func(conn *sql.Conn) error {
		if err := d.inTx(ctx, conn, func(tx *sql.Tx) error { return d.bootstrap(ctx, tx) }); err != nil {
			return fmt.Errorf("prepare schema_migrations: %w", err)
		}
		for i, st := range steps {
			err := d.inTx(ctx, conn, func(tx *sql.Tx) error { return d.apply(ctx, tx, steps, st) })
			if err != nil {
				return stepFailed(steps, i, err)
			}
			if st.ID == last {
				break
			}
		}
		return nil
	})
}

// stepFailed says which step failed and where that leaves the database.
func stepFailed(steps []migrations.Step, i int, err error) error {
	if errors.Is(err, ErrNewerDatabase) {
		return err
	}
	at := "no step"
	if i > 0 {
		at = steps[i-1].ID
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Detail != "" {
		err = fmt.Errorf("%w: %s", err, pgErr.Detail) // names the offending row
	}
	return fmt.Errorf("migration %s failed and was rolled back (the database is at %s): %w; "+
		"fix or remove the rows it names, or restore a backup, then migrate again", steps[i].ID, at, err)
}

// apply runs one step in tx unless the database has run it already. The
// applied set is read inside the transaction, under the lock, so that a
// step another process has just run is seen.
func (d *dialect) apply(ctx context.Context, tx *sql.Tx, steps []migrations.Step, st migrations.Step) error {
	applied, err := d.applied(ctx, tx)
	if err != nil {
		return err
	}
	if err := checkKnown(applied, steps); err != nil {
		return err
	}
	if _, ok := applied[st.ID]; ok {
		return nil
	}
	if _, err := tx.ExecContext(ctx, st.SQL); err != nil {
		return err
	}
	if d.check != nil {
		if err := d.check(ctx, tx); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, d.q("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)"), st.ID, time.Now().UTC())
	return err
}

// checkKnown refuses a database that has run a step this binary lacks.
func checkKnown(applied map[string]*time.Time, steps []migrations.Step) error {
	known := make(map[string]bool, len(steps))
	for _, st := range steps {
		known[st.ID] = true
	}
	for id := range applied {
		if !known[id] {
			return fmt.Errorf("%w (it has run migration %s, which this binary does not know): run that release or a later one",
				ErrNewerDatabase, id)
		}
	}
	return nil
}

// MigrationStatus lists the steps this binary knows, applied or pending,
// then any step the database has run that this binary does not know (as
// applied). It changes nothing.
func (db *DB) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	return migrationStatus(ctx, db.gorm)
}

func migrationStatus(ctx context.Context, db *gorm.DB) ([]MigrationState, error) {
	d, err := dialectOf(db)
	if err != nil {
		return nil, err
	}
	steps, err := migrations.Steps(d.name)
	if err != nil {
		return nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	applied, err := d.applied(ctx, sqlDB)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationState, 0, len(steps))
	for _, st := range steps {
		at, ok := applied[st.ID]
		out = append(out, MigrationState{ID: st.ID, Applied: ok, AppliedAt: at})
		delete(applied, st.ID)
	}
	for _, id := range slices.Sorted(maps.Keys(applied)) {
		at := applied[id]
		out = append(out, MigrationState{ID: id, Applied: true, AppliedAt: at, Unknown: true})
	}
	return out, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// applied reads schema_migrations: step id to when it ran. A database
// without the table has run nothing; one created before the runner
// recorded times has no applied_at column yet.
func (d *dialect) applied(ctx context.Context, q querier) (map[string]*time.Time, error) {
	cols, err := strings1(ctx, q, d.columnsSQL)
	if err != nil {
		return nil, err
	}
	out := map[string]*time.Time{}
	if len(cols) == 0 {
		return out, nil
	}
	at := "NULL"
	if slices.Contains(cols, "applied_at") {
		at = "applied_at"
	}
	rows, err := q.QueryContext(ctx, "SELECT id, "+at+" FROM schema_migrations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var when sql.NullTime
		if err := rows.Scan(&id, &when); err != nil {
			return nil, err
		}
		out[id] = nil
		if when.Valid {
			t := when.Time.UTC()
			out[id] = &t
		}
	}
	return out, rows.Err()
}

// strings1 runs a query returning one text column.
func strings1(ctx context.Context, q querier, query string) ([]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// PendingMigrations lists the steps this binary knows that the database
// has not applied yet, in order: a replica started before
// `cloudplane migrate` ran is not ready to serve.
func (db *DB) PendingMigrations(ctx context.Context) ([]string, error) {
	states, err := db.MigrationStatus(ctx)
	if err != nil {
		return nil, err
	}
	var pending []string
	for _, st := range states {
		if !st.Applied && !st.Unknown {
			pending = append(pending, st.ID)
		}
	}
	return pending, nil
}
