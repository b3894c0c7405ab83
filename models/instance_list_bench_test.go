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
// 0 and 1,000 instances terminated long ago. A terminated instance keeps
// its row with the status terminating (reads derive terminated from
// status_until), and no index leads to an account's live instances, so
// the instance list reads every instance the account ever had: what the
// account holds, not what the list shows. That wants an index, so a
// migration, and is left (issue 24's evidence: SQLite 272 -> 365 us,
// PostgreSQL 214 -> 669 us). The ruleset list is led by the rulesets
// since, and stays flat (it went from 65 to 319 us on SQLite).
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
