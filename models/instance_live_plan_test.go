package models_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Both halves of the live-instance read (the instance and ruleset lists)
// go by idx_instances_live, whatever else could serve the account. Keyed
// by account, SQLite once read them through the key instead, every
// terminated instance of the account's history included, and lists grew
// slower minute after minute of a soak (issue 24, migration 0035).
func TestLiveInstancesReadByTheLiveIndex(t *testing.T) {
	store := modelstest.Open(t)
	ctx := context.Background()
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	// An account's history, as a soak leaves it: a few live instances
	// among many terminated ones.
	ended := time.Now().Add(-time.Hour)
	for i := range 300 {
		inst := models.Instance{AccountID: *owner.AccountID, Status: models.InstanceTerminated, TerminatedAt: &ended}
		if i%50 == 0 {
			inst.Status, inst.TerminatedAt = models.InstanceActive, nil
		}
		modelstest.InsertInstance(t, store, inst)
	}
	if modelstest.Backend() == "postgres" {
		// PostgreSQL's autovacuum would have analysed the table by then.
		if err := store.DB().Exec("ANALYZE instances").Error; err != nil {
			t.Fatal(err)
		}
	}
	query := models.LiveInstancesSQL("instances.id") + "SELECT id FROM live"
	if modelstest.Backend() == "postgres" {
		query = numberedPlaceholders(query)
	}
	plan := explain(t, ctx, store, query, []any{*owner.AccountID, *owner.AccountID, time.Now()})
	if n := strings.Count(plan, "idx_instances_live"); n != 2 {
		t.Fatalf("idx_instances_live in %d of the two halves:\n%s", n, plan)
	}
}

// numberedPlaceholders writes GORM's ? placeholders as PostgreSQL's $1,
// $2, ..., for EXPLAIN through database/sql.
func numberedPlaceholders(query string) string {
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", "$"+strconv.Itoa(i), 1)
	}
	return query
}
