package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestLatestAuditEvents(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	modelstest.Owner(t, store, "bob@example.com")
	for _, name := range []string{"one", "two", "three"} {
		clock.Advance(time.Second)
		if _, _, err := store.CreateAPIKey(ctx, ada.Actor(), models.CreateAPIKeyInput{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	events := modelstest.Must[[]models.AuditEvent](t)(store.LatestAuditEvents(ctx, ada.Actor(), 2))
	if len(events) != 2 || events[0].AdditionalDetails.Map()["name"] != "three" || events[1].AdditionalDetails.Map()["name"] != "two" {
		t.Fatalf("events %+v", events)
	}
	all := modelstest.Must[[]models.AuditEvent](t)(store.LatestAuditEvents(ctx, ada.Actor(), 100))
	for _, ev := range all {
		if ev.AccountID != *ada.AccountID {
			t.Fatalf("another account's event: %+v", ev)
		}
	}
	support := modelstest.Must[*models.User](t)(store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: password, Role: models.RoleSupport}))
	if _, err := store.LatestAuditEvents(ctx, support.Actor(), 5); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("support: %v", err)
	}
}

// The overview counts the account's live resources and nobody else's:
// revoked keys and terminated instances are gone.
func TestAccountOverview(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t) // each owner has one API key and one SSH key
	k, _, err := f.store.CreateAPIKey(ctx, f.alice, models.CreateAPIKeyInput{Name: "revoked"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.RevokeAPIKey(ctx, f.alice, k.ID); err != nil {
		t.Fatal(err)
	}
	ids := f.launch(t, f.alice, launchInput("us-east-1", 2))
	if _, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: ids[:1]}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: "data", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	rules := []models.FirewallRule{}
	if _, err := f.store.CreateFirewallRuleset(ctx, f.alice, models.CreateFirewallRulesetInput{Name: "web", Region: "us-east-1", Rules: rules}); err != nil {
		t.Fatal(err)
	}
	f.launch(t, f.bob, launchInput("us-east-1", 1))

	o := modelstest.Must[*models.AccountOverview](t)(f.store.AccountOverview(ctx, f.alice))
	counts := [5]int64{o.APIKeys, o.SSHKeys, o.Instances, o.Filesystems, o.Rulesets}
	if counts != [5]int64{1, 1, 1, 1, 1} || o.Account.ID != f.alice.AccountID || o.Account.FilesystemQuota != 25 {
		t.Fatalf("overview %+v", o)
	}
	support := modelstest.Must[*models.User](t)(f.store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: password, Role: models.RoleSupport}))
	if _, err := f.store.AccountOverview(ctx, support.Actor()); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("support: %v", err)
	}
}

func TestNearQuota(t *testing.T) {
	for _, tc := range []struct {
		used  int64
		quota int
		want  bool
	}{{0, 25, false}, {19, 25, false}, {20, 25, true}, {25, 25, true}, {0, 0, true}, {3, 50, false}} {
		if got := models.NearQuota(tc.used, tc.quota); got != tc.want {
			t.Errorf("NearQuota(%d, %d) = %v", tc.used, tc.quota, got)
		}
	}
}
