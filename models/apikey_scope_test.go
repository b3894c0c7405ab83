package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A key expires at the same moment on every replica, however recently
// either cached it: expiry is checked on each request, not cached.
func TestExpiredKeyIsRefusedOnEveryReplica(t *testing.T) {
	ctx := context.Background()
	clock, here, there := twoReplicas(t)
	owner, _ := modelstest.Owner(t, here, "owner@example.com")
	k, secret, err := here.CreateAPIKey(ctx, owner.Actor(), models.CreateAPIKeyInput{Name: "ci", Expires: "7d", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if k.Scope != models.ScopeReadOnly || k.ExpiresAt == nil || !k.ExpiresAt.Equal(clock.Now().AddDate(0, 0, 7)) {
		t.Fatalf("key %+v", k)
	}
	for _, s := range []*models.Store{here, there} {
		a, err := s.Authenticate(ctx, secret)
		if err != nil || !a.ReadOnly {
			t.Fatalf("before expiry: actor %+v, %v; want a read-only actor", a, err)
		}
	}
	clock.Advance(7*24*time.Hour - time.Second)
	if _, err := there.Authenticate(ctx, secret); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	clock.Advance(time.Second)
	for _, s := range []*models.Store{here, there} {
		if _, err := s.Authenticate(ctx, secret); models.ErrorCode(err) != models.CodeInvalidAPIKey {
			t.Fatalf("expired key: err %v, want %s", err, models.CodeInvalidAPIKey)
		}
	}
}

func TestKeyExpiryIsValidated(t *testing.T) {
	now := time.Date(2026, 11, 23, 18, 30, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"": "", "never": "", "1d": "2026-11-24T18:30:00Z", "365d": "2027-11-23T18:30:00Z",
		"2026-11-23": "2026-11-24T00:00:00Z", "2027-01-31": "2027-02-01T00:00:00Z", "2026-12-01T10:00:00Z": "2026-12-01T10:00:00Z",
	} {
		at, err := models.ParseKeyExpiry(in, now)
		got := ""
		if at != nil {
			got = at.UTC().Format(time.RFC3339)
		}
		if err != nil || got != want {
			t.Errorf("%q: %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"0d", "-3d", "3650d0", "99999d", "2026-11-22", "2026-11-23T18:30:00Z", "tomorrow", "3w"} {
		if at, err := models.ParseKeyExpiry(in, now); err == nil {
			t.Errorf("%q: accepted as %v", in, at)
		}
	}
}
