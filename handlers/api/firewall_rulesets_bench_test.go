package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkListFirewallRulesets is GET /api/v1/firewall-rulesets of 50
// rulesets (the quota) of two rules each, ten attached to an instance, as
// the load test's accounts end up.
//
//	go test ./handlers/api -run '^$' -bench ListFirewallRulesets
func BenchmarkListFirewallRulesets(b *testing.B) {
	ctx := context.Background()
	store := modelstest.Open(b)
	owner, key := modelstest.Owner(b, store, "bench@example.com")
	rules := []models.FirewallRule{sshRule, {Protocol: models.ProtocolICMP, SourceNetwork: "203.0.113.0/24", Description: "ping"}}
	for i := range 50 {
		r, err := store.CreateFirewallRuleset(ctx, owner.Actor(),
			models.CreateFirewallRulesetInput{Name: fmt.Sprintf("ruleset-%02d", i), Region: "us-west-1", Rules: rules})
		if err != nil {
			b.Fatal(err)
		}
		if i%5 == 0 {
			inst := modelstest.InsertInstance(b, store, models.Instance{AccountID: *owner.AccountID, Status: models.InstanceActive})
			modelstest.Attach(b, store, inst.ID, r.ID)
		}
	}
	general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	app := handlers.New(handlers.Config{Store: store, Limits: api.Limits{General: general}})
	benchGet(b, app.Handler(), key, "/api/v1/firewall-rulesets", 200)
}
