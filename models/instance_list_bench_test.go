package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkInstanceListsAsTerminatedAccumulate lists an account's four
// running instances, and its rulesets (which name their instances), beside
// 0 and 1,000 instances terminated long ago. Terminated instances keep
// their rows, so a list led by the account alone read every instance the
// account ever had (issue 24: SQLite 240 against 80 us). Both lists are
// led by idx_instances_live's two ranges (liveInstancesSQL) and stay flat
// on SQLite (75-106 against 73-88 us). PostgreSQL's planner leads with
// that index once it has statistics of the table (autovacuum's ANALYZE),
// which a benchmark's fresh table does not have yet.
//
//	go test ./models -run '^$' -bench InstanceListsAsTerminatedAccumulate
func BenchmarkInstanceListsAsTerminatedAccumulate(b *testing.B) {
	for _, terminated := range []int{0, 1000} {
		ctx := context.Background()
		store := unboundedStore(b)
		owner := benchOwners(b, store, 1)[0]
		past := store.Now().Add(-time.Hour)
		for range terminated {
			modelstest.InsertInstance(b, store, models.Instance{AccountID: owner.AccountID,
				Status: models.InstanceTerminating, StatusUntil: &past, TerminatedAt: &past})
		}
		for range 4 {
			modelstest.InsertInstance(b, store, models.Instance{AccountID: owner.AccountID, Status: models.InstanceActive})
		}
		b.Run(fmt.Sprintf("terminated=%d/instances", terminated), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := store.Instances(ctx, owner); err != nil || len(got) != 4 {
					b.Fatalf("%d instances, %v", len(got), err)
				}
			}
		})
		b.Run(fmt.Sprintf("terminated=%d/rulesets", terminated), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := store.FirewallRulesets(ctx, owner); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
