package testserver

import (
	"os"
	"path/filepath"
	"strings"
)

// PostgresEnv names the PostgreSQL server URL the tests run against as
// well as SQLite, when it is set; models/modelstest reads the same
// variable for the stores it opens.
const PostgresEnv = "CLOUDPLANE_TEST_POSTGRES_URL"

// PostgresURL is PostgresEnv's value, "" when tests run on SQLite only.
func PostgresURL() string { return strings.TrimSpace(os.Getenv(PostgresEnv)) }

// CreateDB creates a fresh, migrated database on the PostgreSQL server at
// base and returns its URL and how to drop it: modelstest.CreatePostgresDB.
// It is taken as an argument because this package imports no cloudplane
// package.
type CreateDB func(base string) (dsn string, drop func() error, err error)

// FreshDatabase returns a database for a server that outlives one test (a
// suite's, the load test's): a SQLite file in dir when pgURL is "", else
// a new database made by create on the server at pgURL, which drop
// removes. A test's own server takes modelstest.DSN(t) instead.
func FreshDatabase(dir, pgURL string, create CreateDB) (dsn string, drop func() error, err error) {
	if pgURL == "" {
		return filepath.Join(dir, "cloudplane.db"), func() error { return nil }, nil
	}
	return create(pgURL)
}
