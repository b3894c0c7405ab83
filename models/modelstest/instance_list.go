package modelstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
)

// EightInstances opens a store whose clock stands an hour after an
// owner's account launched eight gpu_1x_a10 in us-east-1, all tagged, the
// first two with a filesystem and a ruleset: an instance list as the load
// test's accounts have it, all active, for benchmarks. It returns the
// store, the owner and their API key.
func EightInstances(tb testing.TB) (*models.Store, *models.User, string) {
	tb.Helper()
	ctx := context.Background()
	clock := NewClock()
	cfg := Config()
	capacity, err := models.ParseCapacity("gpu_1x_a10:us-east-1=100")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Capacity = capacity
	store := Open(tb, models.WithClock(clock.Now), models.WithConfig(cfg))
	user, key := Owner(tb, store, "instances@example.com")
	owner := user.Actor()
	if _, _, err := store.CreateSSHKey(ctx, owner, models.CreateSSHKeyInput{Name: "key"}); err != nil {
		tb.Fatal(err)
	}
	if _, err := store.CreateFilesystem(ctx, owner, models.CreateFilesystemInput{Name: "data", Region: "us-east-1"}); err != nil {
		tb.Fatal(err)
	}
	rs, err := store.CreateFirewallRuleset(ctx, owner, models.CreateFirewallRulesetInput{Name: "web", Region: "us-east-1", Rules: []models.FirewallRule{}})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 8 {
		one := 1
		in := models.LaunchInstancesInput{RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"key"},
			Name: fmt.Sprintf("trainer-%d", i), Quantity: &one, Tags: []models.InstanceTag{{Key: "team", Value: "ml"}}}
		if i < 2 {
			in.FileSystemNames, in.FirewallRulesets = []string{"data"}, []models.RulesetRef{{ID: rs.ID}}
		}
		if _, err := store.LaunchInstances(ctx, owner, in); err != nil {
			tb.Fatal(err)
		}
	}
	clock.Advance(time.Hour) // all active: the list has no end by the clock
	return store, user, key
}
