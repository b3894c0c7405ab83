package models_test

import (
	"context"
	"fmt"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// seedRulesets gives the account n rulesets of two rules each, as the load
// test's accounts have at their quota, and attaches every fifth one to a
// running instance.
func seedRulesets(tb testing.TB, store *models.Store, actor models.Actor, n int) {
	tb.Helper()
	rules := []models.FirewallRule{
		{Protocol: models.ProtocolTCP, PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0", Description: "ssh"},
		{Protocol: models.ProtocolICMP, SourceNetwork: "203.0.113.0/24", Description: "ping <internal>"},
	}
	for i := range n {
		r, err := store.CreateFirewallRuleset(context.Background(), actor,
			models.CreateFirewallRulesetInput{Name: fmt.Sprintf("ruleset-%02d", i), Region: "us-east-1", Rules: rules})
		if err != nil {
			tb.Fatal(err)
		}
		if i%5 == 0 {
			inst := modelstest.InsertInstance(tb, store, models.Instance{AccountID: actor.AccountID, Status: models.InstanceActive})
			modelstest.Attach(tb, store, inst.ID, r.ID)
		}
	}
}

// benchRulesetAccount is a store with an account of 50 rulesets, the
// quota (seedRulesets).
func benchRulesetAccount(b *testing.B) (*models.Store, *models.User) {
	store := modelstest.Open(b)
	owner, _ := modelstest.Owner(b, store, "bench@example.com")
	seedRulesets(b, store, owner.Actor(), 50)
	return store, owner
}

// BenchmarkFirewallRulesets is the list's domain read: 50 rulesets, the
// quota, ten of them attached to an instance.
//
//	go test ./models -run '^$' -bench 'FirewallRulesets$'
func BenchmarkFirewallRulesets(b *testing.B) {
	ctx := context.Background()
	store, owner := benchRulesetAccount(b)
	b.ReportAllocs()
	for b.Loop() {
		if list, err := store.FirewallRulesets(ctx, owner.Actor()); err != nil || len(list) != 50 {
			b.Fatalf("listed %d, err %v", len(list), err)
		}
	}
}

// BenchmarkFirewallRulesetsAfterChange reads the list after every change
// of the account (AccountChanged, a write, included in the time), so that
// the list is read from the database each time: the cost of a miss.
//
//	go test ./models -run '^$' -bench 'FirewallRulesetsAfterChange'
func BenchmarkFirewallRulesetsAfterChange(b *testing.B) {
	ctx := context.Background()
	store, owner := benchRulesetAccount(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := store.AccountChanged(ctx, *owner.AccountID); err != nil {
			b.Fatal(err)
		}
		if list, err := store.FirewallRulesets(ctx, owner.Actor()); err != nil || len(list) != 50 {
			b.Fatalf("listed %d, err %v", len(list), err)
		}
	}
}
