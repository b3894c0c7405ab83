package modelstest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"cloudplane/models/database"
	"cloudplane/models/database/migrations"
)

// templateLockKey is the advisory lock under which test processes build
// the migrated template: "cptmpl" in ASCII.
const templateLockKey int64 = 0x6370746d706c

// templateWait bounds the wait for another test process building it.
const templateWait = 2 * time.Minute

// templates remembers, per server, the template this process made sure of.
var templates sync.Map // base URL -> func() (string, error)

// migratedTemplate returns the name of a template database on the server
// at base that holds the schema the migrations build, creating it the
// first time any test process asks. It is named by the migrations' hash,
// so a new step makes a new template and an old one is never reused. Test
// databases are copied from it (CREATE DATABASE ... TEMPLATE), which is
// much cheaper than migrating each.
func migratedTemplate(base string) (string, error) {
	once, _ := templates.LoadOrStore(base, sync.OnceValues(func() (string, error) { return ensureTemplate(base) }))
	return once.(func() (string, error))()
}

// ensureTemplate creates the template under an advisory lock, so that test
// packages run in parallel by go test wait for one builder instead of
// racing. A template left half-built by a killed process is not marked
// as a template, and is rebuilt.
func ensureTemplate(base string) (string, error) {
	name := "cloudplane_tmpl_" + migrations.Hash()[:16]
	ctx, cancel := context.WithTimeout(context.Background(), templateWait)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("wait for the template database lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey) //nolint:errcheck // closing the connection releases it too
	var ready sql.NullBool
	err = conn.QueryRowContext(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", name).Scan(&ready)
	switch {
	case err == nil && ready.Bool:
		return name, nil
	case err == nil:
		if _, err := conn.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			return "", err
		}
	case err != sql.ErrNoRows:
		return "", err
	}
	if err := buildTemplate(ctx, conn, base, name); err != nil {
		return "", fmt.Errorf("build template database %s: %w", name, err)
	}
	return name, nil
}

// buildTemplate creates name, migrates it, and marks it a template that
// accepts no connections (a copy fails while anyone is connected).
func buildTemplate(ctx context.Context, conn *sql.Conn, base, name string) error {
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return err
	}
	dsn, err := withDatabase(base, name)
	if err != nil {
		return err
	}
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return err
	}
	err = db.Migrate(ctx)
	_ = db.Close()
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "ALTER DATABASE "+name+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false")
	return err
}
