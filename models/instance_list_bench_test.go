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

// BenchmarkFreePublicIPAsTerminatedAccumulate is the address a launch
// draws, checked against the instances not terminated, beside 0 and 5,000
// terminated ones: a launch runs it in its write transaction (on SQLite,
// in the one writer every write waits for), so it must not read the
// history of every instance there ever was.
//
//	go test ./models -run '^$' -bench FreePublicIPAsTerminatedAccumulate
func BenchmarkFreePublicIPAsTerminatedAccumulate(b *testing.B) {
	for _, terminated := range []int{0, 5000} {
		store := unboundedStore(b)
		owner := benchOwners(b, store, 1)[0]
		past := store.Now().Add(-time.Hour)
		for i := range terminated {
			modelstest.InsertInstance(b, store, models.Instance{AccountID: owner.AccountID, Status: models.InstanceTerminated,
				TerminatedAt: &past, IP: fmt.Sprintf("198.51.%d.%d", i/250, i%250), PrivateIP: "10.0.0.1"})
		}
		b.Run(fmt.Sprintf("terminated=%d", terminated), func(b *testing.B) {
			for b.Loop() {
				if ip, err := models.FreePublicIP(store.DB()); err != nil || ip == "" {
					b.Fatalf("%q, %v", ip, err)
				}
			}
		})
	}
}
