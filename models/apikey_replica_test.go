package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// twoReplicas opens two stores on one database, on one clock.
func twoReplicas(t *testing.T) (clock *modelstest.Clock, here, there *models.Store) {
	t.Helper()
	dsn := modelstest.DSN(t)
	clock = modelstest.NewClock()
	return clock, modelstest.OpenAt(t, dsn, models.WithClock(clock.Now)), modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
}

// Two stores on one database stand for two replicas: a key revoked, or an
// account deactivated, through one is refused by the other as soon as the
// credentials check interval has passed, not after the cache's lifetime.
func TestRevocationReachesOtherReplicas(t *testing.T) {
	ctx := context.Background()
	clock, here, there := twoReplicas(t)
	owner, secret := modelstest.Owner(t, here, "owner@example.com")
	_, other := modelstest.Owner(t, here, "other@example.com")

	for _, s := range []string{secret, other} {
		if _, err := there.Authenticate(ctx, s); err != nil {
			t.Fatalf("authenticate before revocation: %v", err)
		}
	}
	keys, err := here.APIKeys(ctx, owner.Actor())
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %v %v", keys, err)
	}
	if _, err := here.RevokeAPIKey(ctx, owner.Actor(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if _, err := there.Authenticate(ctx, secret); models.ErrorCode(err) != models.CodeInvalidAPIKey {
		t.Fatalf("revoked key on the other replica: err %v, want %s", err, models.CodeInvalidAPIKey)
	}
	if _, err := there.Authenticate(ctx, other); err != nil {
		t.Fatalf("an unrelated key must keep working: %v", err)
	}

	inactive := models.AccountInactive
	if _, err := here.UpdateAccount(ctx, models.OperatorActor, "other@example.com",
		models.UpdateAccountInput{Status: &inactive}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if _, err := there.Authenticate(ctx, other); models.ErrorCode(err) != models.CodeAccountInactive {
		t.Fatalf("deactivated account on the other replica: err %v, want %s", err, models.CodeAccountInactive)
	}
}
