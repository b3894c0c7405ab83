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
	if len(events) != 2 || events[0].AdditionalDetails["name"] != "three" || events[1].AdditionalDetails["name"] != "two" {
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

func TestAccountOverview(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	ada, _ := modelstest.Owner(t, store, "ada@example.com") // one key
	modelstest.Owner(t, store, "bob@example.com")
	k, _, err := store.CreateAPIKey(ctx, ada.Actor(), models.CreateAPIKeyInput{Name: "revoked"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, ada.Actor(), k.ID); err != nil {
		t.Fatal(err)
	}
	o := modelstest.Must[*models.AccountOverview](t)(store.AccountOverview(ctx, ada.Actor()))
	if o.APIKeys != 1 || o.Filesystems != 0 || o.Rulesets != 0 || o.Account.ID != *ada.AccountID || o.Account.FilesystemQuota != 25 {
		t.Fatalf("overview %+v", o)
	}
	support := modelstest.Must[*models.User](t)(store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: password, Role: models.RoleSupport}))
	if _, err := store.AccountOverview(ctx, support.Actor()); models.ErrorCode(err) != models.CodeForbidden {
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
