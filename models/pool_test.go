package models_test

import (
	"testing"

	"cloudplane/models/modelstest"
)

// Both databases get a bounded pool: unbounded, a busy PostgreSQL replica
// opened a server process for most requests and several could exhaust
// max_connections; too small, SQLite requests queue for a connection
// behind a descheduled holder.
func TestConnectionPoolIsBounded(t *testing.T) {
	store := modelstest.Open(t)
	sqlDB, err := store.DB().DB()
	if err != nil {
		t.Fatal(err)
	}
	if n := sqlDB.Stats().MaxOpenConnections; n < 8 || n > 64 {
		t.Fatalf("pool of %d connections on %s", n, modelstest.Backend())
	}
}
