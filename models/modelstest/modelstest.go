// Package modelstest builds real, migrated databases and fixtures for
// tests: a SQLite file per test, or a fresh PostgreSQL database when
// CLOUDPLANE_TEST_POSTGRES_URL is set.
package modelstest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/webhooks/netguard"
)

// PostgresEnv names the server URL the suite also runs against.
const PostgresEnv = "CLOUDPLANE_TEST_POSTGRES_URL"

// Clock is a controllable clock, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at a fixed, round instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// DSN returns a database for one test: a new SQLite file, or a new
// PostgreSQL database (dropped at cleanup), already migrated, when
// PostgresEnv is set.
func DSN(tb testing.TB) string {
	tb.Helper()
	return newDSN(tb, true)
}

// EmptyDSN is DSN without the migration: a database with no tables, for
// tests of the migrations themselves.
func EmptyDSN(tb testing.TB) string {
	tb.Helper()
	return newDSN(tb, false)
}

func newDSN(tb testing.TB, migrated bool) string {
	tb.Helper()
	base := envPostgres()
	if base == "" {
		return filepath.Join(tb.TempDir(), "cloudplane.db")
	}
	dsn, drop, err := createPostgresDB(base, migrated)
	if err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	tb.Cleanup(func() {
		if err := drop(); err != nil {
			tb.Logf("%v", err)
		}
	})
	return dsn
}

// Open returns a migrated store on a fresh database for one test, with a
// low bcrypt cost and netguard's check of webhook destinations. Options
// are applied after the defaults.
func Open(tb testing.TB, opts ...models.Option) *models.Store {
	tb.Helper()
	return OpenAt(tb, DSN(tb), opts...)
}

// OpenAt is Open on a given database: stores opened at one DSN share it
// as replicas of the server would.
func OpenAt(tb testing.TB, dsn string, opts ...models.Option) *models.Store {
	tb.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, dsn)
	if err != nil {
		tb.Fatalf("open database: %v", err)
	}
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	all := append([]models.Option{models.WithConfig(Config()), models.WithWebhookGuard(netguard.Guard{})}, opts...)
	store := models.NewStore(db, all...)
	tb.Cleanup(func() { _ = store.Close() })
	return store
}

// OpenDatabase opens the database at dsn without migrating it, for tests
// of the engine and of migrations; it is closed when the test ends.
func OpenDatabase(tb testing.TB, dsn string) *database.DB {
	tb.Helper()
	db, err := database.Open(context.Background(), dsn)
	if err != nil {
		tb.Fatalf("open database: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// Config is the configuration Open gives a store: the defaults with a
// low bcrypt cost, since tests hash many passwords.
func Config() models.Config {
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4 // bcrypt.MinCost
	// Off, so tests sign support staff in with a password; the tests of
	// the rule turn it on.
	cfg.RequireSecondFactorForSupport = false
	return cfg
}

// Backend names the database the tests run on, for messages.
func Backend() string {
	if envPostgres() != "" {
		return "postgres"
	}
	return "sqlite"
}

// CreatePostgresDB creates a migrated database on the server at base (a
// postgres:// URL) and returns its URL and a func that drops it. It is
// for suites that need a database outside one test, such as a server
// started in TestMain; tests use DSN or Open.
func CreatePostgresDB(base string) (dsn string, drop func() error, err error) {
	return createPostgresDB(base, true)
}

// createPostgresDB creates a database, empty or as a copy of the migrated
// template, with its own connection to the server for dropping it.
func createPostgresDB(base string, migrated bool) (dsn string, drop func() error, err error) {
	name := "cloudplane_test_" + models.NewID()[16:] // its random half: the first is the time
	stmt := "CREATE DATABASE " + name
	if migrated {
		tmpl, err := migratedTemplate(base)
		if err != nil {
			return "", nil, err
		}
		stmt += " TEMPLATE " + tmpl
	}
	admin, err := gorm.Open(postgres.Open(base), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return "", nil, err
	}
	sqlAdmin, _ := admin.DB()
	if err := admin.Exec(stmt).Error; err != nil {
		_ = sqlAdmin.Close()
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	drop = func() error {
		defer sqlAdmin.Close()
		// WITH (FORCE) ends connections a failed test left open.
		if err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").Error; err != nil {
			return fmt.Errorf("drop test database %s: %w", name, err)
		}
		return nil
	}
	dsn, err = withDatabase(base, name)
	return dsn, drop, err
}

// withDatabase is the server URL base naming database name instead.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func envPostgres() string { return strings.TrimSpace(os.Getenv(PostgresEnv)) }

// Owner creates an owner (with their own account) and an API key, and
// returns the user and the key's secret.
func Owner(tb testing.TB, store *models.Store, email string) (*models.User, string) {
	tb.Helper()
	ctx := context.Background()
	u, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: email, Password: "correct horse battery"})
	if err != nil {
		tb.Fatalf("create owner %s: %v", email, err)
	}
	_, secret, err := store.CreateAPIKey(ctx, u.Actor(), models.CreateAPIKeyInput{Name: "test"})
	if err != nil {
		tb.Fatalf("create key for %s: %v", email, err)
	}
	return u, secret
}

// Must fails the test on err and returns v.
func Must[T any](tb testing.TB) func(v T, err error) T {
	return func(v T, err error) T {
		tb.Helper()
		if err != nil {
			tb.Fatalf("%v", err)
		}
		return v
	}
}

// HoldWriteLock takes SQLite's write lock on the database at dsn from a
// connection of its own, as another process would, until release is
// called (also at cleanup).
func HoldWriteLock(tb testing.TB, dsn string) (release func()) {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file:"+dsn+"?_busy_timeout=5000")
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		tb.Fatalf("take the write lock: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			_ = conn.Close()
			_ = db.Close()
		})
	}
	tb.Cleanup(release)
	return release
}

// Member makes the user with email (created, with an account of their own,
// if new) a member of owner's account with role, and returns them acting
// there and the secret of a key of theirs in it: full, read-only for a
// viewer.
func Member(tb testing.TB, store *models.Store, owner models.Actor, email, role string) (models.Actor, string) {
	tb.Helper()
	ctx := context.Background()
	u, err := store.UserByEmail(ctx, email)
	if models.ErrorCode(err) == models.CodeNotFound {
		u, _ = Owner(tb, store, email)
	} else if err != nil {
		tb.Fatal(err)
	}
	if _, err := store.AddMemberNow(ctx, owner, owner.AccountID, u.ID, role); err != nil {
		tb.Fatalf("add %s as %s: %v", email, role, err)
	}
	a, err := store.MemberActorByEmail(ctx, owner.Email, email)
	if err != nil {
		tb.Fatal(err)
	}
	_, secret, err := store.CreateAPIKey(ctx, a, models.CreateAPIKeyInput{Name: email, ReadOnly: role == models.RoleViewer})
	if err != nil {
		tb.Fatalf("key of %s: %v", email, err)
	}
	return a, secret
}
