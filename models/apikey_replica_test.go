package models_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

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

// A key row read before a demotion or removal commits, and put into the
// cache after another request on this replica has seen the new credentials
// version, must not stay cached: the change is seen by every replica
// within 1 s. A gorm callback runs the change right after the row is read.
func TestKeyReadBeforeARoleChangeIsNotCachedPastIt(t *testing.T) {
	changes := map[string]func(ctx context.Context, s *models.Store, owner models.Actor, email string) error{
		"demotion": func(ctx context.Context, s *models.Store, owner models.Actor, email string) error {
			_, err := s.SetMemberRole(ctx, owner, models.MemberInput{Member: email, Role: models.RoleViewer})
			return err
		},
		"removal": func(ctx context.Context, s *models.Store, owner models.Actor, email string) error {
			_, err := s.RemoveMember(ctx, owner, models.MemberInput{Member: email})
			return err
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock, here, there := twoReplicas(t)
			owner, _ := modelstest.Owner(t, here, "owner@example.com")
			member, secret := modelstest.Member(t, here, owner.Actor(), "member@example.com", models.RoleMember)
			_, otherSecret := modelstest.Owner(t, here, "other@example.com")
			var armed, fired atomic.Bool
			err := there.DB().Callback().Query().After("gorm:query").Register("test:race", func(db *gorm.DB) {
				if !armed.Load() || !strings.Contains(db.Statement.SQL.String(), "api_keys.hash") || fired.Swap(true) {
					return
				}
				// The member's row has been read; the change commits
				// elsewhere and another request on this replica syncs.
				if err := change(ctx, here, owner.Actor(), member.Email); err != nil {
					t.Error(err)
				}
				clock.Advance(300 * time.Millisecond)
				if _, err := there.Authenticate(ctx, otherSecret); err != nil {
					t.Error(err)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			armed.Store(true)
			if _, err := there.Authenticate(ctx, secret); err != nil {
				t.Fatal(err) // read before the change: this one request passes
			}
			if !fired.Load() {
				t.Fatal("the change did not run between the read and the cache")
			}
			clock.Advance(time.Second)
			a, err := there.Authenticate(ctx, secret)
			switch {
			case name == "demotion" && (err != nil || a.Role != models.RoleViewer):
				t.Fatalf("1 s after the demotion: role %q, err %v; want viewer", a.Role, err)
			case name == "removal" && models.ErrorCode(err) != models.CodeInvalidAPIKey:
				t.Fatalf("1 s after the removal: role %q, err %v; want %s", a.Role, err, models.CodeInvalidAPIKey)
			}
		})
	}
}
