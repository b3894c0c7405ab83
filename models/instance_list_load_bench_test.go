package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkInstanceListLoad reads an account's eight active instances
// (two with a filesystem and a ruleset, all tagged) from the database, as
// the API does when its cached list is out of date: the row scan and the
// mounts' and rulesets' queries.
//
//	go test ./models -run '^$' -bench InstanceListLoad
func BenchmarkInstanceListLoad(b *testing.B) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	cfg := modelstest.Config()
	capacity, err := models.ParseCapacity("gpu_1x_a10:us-east-1=100")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Capacity = capacity
	store := modelstest.Open(b, models.WithClock(clock.Now), models.WithConfig(cfg))
	owner := benchOwners(b, store, 1)[0]
	if _, _, err := store.CreateSSHKey(ctx, owner, models.CreateSSHKeyInput{Name: "key"}); err != nil {
		b.Fatal(err)
	}
	if _, err := store.CreateFilesystem(ctx, owner, models.CreateFilesystemInput{Name: "data", Region: "us-east-1"}); err != nil {
		b.Fatal(err)
	}
	rs, err := store.CreateFirewallRuleset(ctx, owner, models.CreateFirewallRulesetInput{Name: "web", Region: "us-east-1", Rules: []models.FirewallRule{}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 8 {
		in := launchInput("us-east-1", 1)
		in.Name, in.Tags = fmt.Sprintf("trainer-%d", i), []models.InstanceTag{{Key: "team", Value: "ml"}}
		if i < 2 {
			in.FileSystemNames, in.FirewallRulesets = []string{"data"}, []models.RulesetRef{{ID: rs.ID}}
		}
		if _, err := store.LaunchInstances(ctx, owner, in); err != nil {
			b.Fatal(err)
		}
	}
	clock.Advance(time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if got, err := store.Instances(ctx, owner); err != nil || len(got) != 8 {
			b.Fatalf("%d instances, %v", len(got), err)
		}
	}
}
