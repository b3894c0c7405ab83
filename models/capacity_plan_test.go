package models_test

import (
	"context"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The instance-types list counts the instances holding capacity from
// idx_instances_in_use alone. Led by the status only, the count read
// each running instance's row for its type and region, on every read of
// the list (issue 24, migration 0036).
func TestInUseCountReadsTheIndexOnly(t *testing.T) {
	store := modelstest.Open(t)
	ctx := context.Background()
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	for i := range 200 {
		inst := models.Instance{AccountID: *owner.AccountID, Status: models.InstanceTerminated}
		if i%4 == 0 {
			inst.Status = models.InstanceActive
		}
		modelstest.InsertInstance(t, store, inst)
	}
	statuses := models.InstanceInUseStatuses
	if len(statuses) != strings.Count(models.InUseByPlaceSQL, "?") {
		t.Fatalf("InUseByPlaceSQL has %d placeholders for %d statuses", strings.Count(models.InUseByPlaceSQL, "?"), len(statuses))
	}
	query, args := models.InUseByPlaceSQL, make([]any, len(statuses))
	for i, s := range statuses {
		args[i] = s
	}
	want := "USING COVERING INDEX idx_instances_in_use"
	if modelstest.Backend() == "postgres" {
		// As autovacuum would have by then: statistics, and the visibility
		// map that lets PostgreSQL skip the table's pages.
		if err := store.DB().Exec("VACUUM ANALYZE instances").Error; err != nil {
			t.Fatal(err)
		}
		query = numberedPlaceholders(query)
		want = "Index Only Scan using idx_instances_in_use"
	}
	if plan := explain(t, ctx, store, query, args); !strings.Contains(plan, want) {
		t.Fatalf("the in-use count is not read from the index alone (want %q):\n%s", want, plan)
	}
}
