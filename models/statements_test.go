package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// countStatements counts the SQL statements the store sends from now on,
// BEGIN and COMMIT aside (a database/sql transaction sends those without
// GORM), through GORM callbacks, which writes and reads share.
func countStatements(t *testing.T, store *models.Store) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	count := func(db *gorm.DB) {
		switch strings.ToUpper(strings.TrimSpace(db.Statement.SQL.String())) {
		case "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK":
			return
		}
		n.Add(1)
	}
	cb := store.DB().Callback()
	for _, k := range []struct {
		register func(string, func(*gorm.DB)) error
		remove   func(string) error
	}{
		{cb.Create().After("gorm:create").Register, cb.Create().Remove},
		{cb.Query().After("gorm:query").Register, cb.Query().Remove},
		{cb.Update().After("gorm:update").Register, cb.Update().Remove},
		{cb.Delete().After("gorm:delete").Register, cb.Delete().Remove},
		{cb.Row().After("gorm:row").Register, cb.Row().Remove},
		{cb.Raw().After("gorm:raw").Register, cb.Raw().Remove},
	} {
		if err := k.register("test:count_statements", count); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k.remove("test:count_statements") })
	}
	return &n
}

// A create is the write the API serves most. Its statements, each a round
// trip inside the account's lock: the account lock with the quota count,
// the insert, the version bump and the audit event. It took five. On
// PostgreSQL the count must follow the lock in a statement of its own, and
// takes the insert, the bump and the event with it: the lock with BEGIN,
// and that statement with COMMIT, are two round trips sent past GORM
// (createFolded, database.DB.WriteAfterLock), so GORM counts none.
func TestCreateFilesystemStatements(t *testing.T) {
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "count@example.com")
	ctx := context.Background()
	n := countStatements(t, store)
	const creates = 10
	for i := range creates {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("counted-%d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, u.Actor(), in); err != nil {
			t.Fatal(err)
		}
	}
	per := float64(n.Load()) / creates
	t.Logf("%.1f statements per filesystem create on %s", per, modelstest.Backend())
	want := 4.0
	if modelstest.Backend() == "postgres" {
		want = 0
	}
	if per > want {
		t.Fatalf("%.1f statements per filesystem create, want at most %.0f", per, want)
	}
}
