package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkInstanceListGet is GET /api/v1/instances of eight active
// instances (two with a filesystem and a ruleset, all tagged), as the
// load test's accounts have them: "unchanged" reads an account whose
// objects did not change since the last read, "changed" one whose version
// moved just before (not timed), so the list is read and encoded again.
//
//	go test ./handlers/api -run '^$' -bench InstanceListGet
func BenchmarkInstanceListGet(b *testing.B) {
	clock := modelstest.NewClock()
	cfg := modelstest.Config()
	capacity, err := models.ParseCapacity("gpu_1x_a10:us-east-1=100")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Capacity = capacity
	store := modelstest.Open(b, models.WithClock(clock.Now), models.WithConfig(cfg))
	owner, key := modelstest.Owner(b, store, "bench@example.com")
	launchEight(b, store, owner.Actor())
	clock.Advance(time.Hour) // all active: the list has no end by the clock
	general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	h := handlers.New(handlers.Config{Store: store, Limits: api.Limits{General: general}, NoAccessLog: true}).Handler()
	b.Run("unchanged", func(b *testing.B) { benchGet(b, h, key, "/api/v1/instances", 200) })
	b.Run("changed", func(b *testing.B) {
		var ctx fasthttp.RequestCtx
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := store.AccountChanged(context.Background(), *owner.AccountID); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			get(b, h, &ctx, key, "/api/v1/instances", 200)
		}
	})
}

// launchEight launches eight gpu_1x_a10 in us-east-1, the first two with
// a filesystem and a ruleset.
func launchEight(b *testing.B, store *models.Store, owner models.Actor) {
	ctx := context.Background()
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
		one := 1
		in := models.LaunchInstancesInput{RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"key"},
			Name: fmt.Sprintf("trainer-%d", i), Quantity: &one, Tags: []models.InstanceTag{{Key: "team", Value: "ml"}}}
		if i < 2 {
			in.FileSystemNames, in.FirewallRulesets = []string{"data"}, []models.RulesetRef{{ID: rs.ID}}
		}
		if _, err := store.LaunchInstances(ctx, owner, in); err != nil {
			b.Fatal(err)
		}
	}
}
