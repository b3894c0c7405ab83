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

// A create is the write the API serves most. Every statement of it is
// sent past GORM: on SQLite they run in the one writer goroutine all
// writes wait for, where GORM building each statement again cost a third
// of that goroutine's time (raw_statements.go); on PostgreSQL the lock
// with BEGIN and the rest with COMMIT are two round trips
// (createFolded, database.DB.WriteAfterLock). So GORM counts none.
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
	if per != 0 {
		t.Fatalf("%.1f statements per filesystem create through GORM, want none", per)
	}
}
