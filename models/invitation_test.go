package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func invite(t *testing.T, s *models.Store, owner models.Actor, email, role string) *models.IssuedInvitation {
	t.Helper()
	inv, err := s.CreateInvitation(context.Background(), owner, models.InviteInput{Email: email, Role: role})
	if err != nil {
		t.Fatalf("invite %s: %v", email, err)
	}
	return inv
}

// A new person accepts with a password: they become a user with no
// account of their own, a member of the inviting account with the
// invited role, signed in on it; the link then answers "accepted".
func TestInvitationAcceptedByANewPerson(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	inv := invite(t, s, f.alice, "New.Person@Example.com", models.RoleViewer)
	if inv.Email != "new.person@example.com" || len(inv.Token) != 96 {
		t.Fatalf("invitation %+v", inv)
	}
	info, err := s.CheckInvitation(ctx, inv.Token)
	if err != nil {
		t.Fatal(err)
	}
	if info.UserExists || info.AccountOwnerEmail != "alice@example.com" || info.InviterEmail != "alice@example.com" || info.Role != "viewer" {
		t.Fatalf("info %+v", info)
	}
	_, _, err = s.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{Token: inv.Token, Password: "short", PasswordConfirm: "short"})
	wantCode(t, err, models.CodeInvalidParameters)

	sess, token, err := s.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{
		Token: inv.Token, Password: "a long enough password", PasswordConfirm: "a long enough password"})
	if err != nil {
		t.Fatal(err)
	}
	got, u, err := s.SessionByToken(ctx, token)
	if err != nil || got.ID != sess.ID {
		t.Fatalf("session: %v", err)
	}
	if u.AccountID != nil {
		t.Errorf("an invited user got an account of their own: %v", *u.AccountID)
	}
	if got.Acting.AccountID != f.alice.AccountID || got.Acting.Role != models.RoleViewer {
		t.Fatalf("acting %+v, want viewer of alice's account", got.Acting)
	}
	// A viewer cannot write.
	_, err = s.CreateFilesystem(ctx, got.Acting, models.CreateFilesystemInput{Name: "nope", Region: "us-east-1"})
	wantCode(t, err, models.CodeInsufficientScope)

	_, err = s.CheckInvitation(ctx, inv.Token)
	if !models.IsInvitationGone(err) {
		t.Fatalf("accepted link: %v, want gone", err)
	}
	for _, action := range []string{"created", "accepted"} {
		if !hasEvent(f.events(t, f.alice, "invitation"), action) {
			t.Errorf("no invitation/%s event", action)
		}
	}
	if !hasEvent(f.events(t, f.alice, "member"), "created") {
		t.Error("no member/created event")
	}
}

func hasEvent(events []models.AuditEvent, action string) bool {
	for _, e := range events {
		if e.Action == action {
			return true
		}
	}
	return false
}

// An existing user signed in with the invited email joins; someone else
// signed in is refused and the link stays usable; a new-person signup
// with an email that has a user is refused too.
func TestInvitationAcceptedByAnExistingUser(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	inv := invite(t, s, f.alice, "bob@example.com", models.RoleMember)
	info, err := s.CheckInvitation(ctx, inv.Token)
	if err != nil || !info.UserExists {
		t.Fatalf("info %+v, %v", info, err)
	}
	_, _, err = s.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{Token: inv.Token,
		Password: "a long enough password", PasswordConfirm: "a long enough password"})
	wantCode(t, err, models.CodeConflict)

	carol := f.owner(t, "carol@example.com")
	_, err = s.AcceptInvitation(ctx, carol, inv.Token)
	wantCode(t, err, models.CodeForbidden)

	if _, err := s.AcceptInvitation(ctx, f.bob, inv.Token); err != nil {
		t.Fatal(err)
	}
	bob, err := s.MemberActorByEmail(ctx, "alice@example.com", "bob@example.com")
	if err != nil || bob.Role != models.RoleMember {
		t.Fatalf("bob in alice's account: %+v, %v", bob, err)
	}
	// Members may write, not invite.
	if _, err := s.CreateFilesystem(ctx, bob, models.CreateFilesystemInput{Name: "ok", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateInvitation(ctx, bob, models.InviteInput{Email: "x@example.com", Role: "viewer"})
	wantCode(t, err, models.CodeInsufficientScope)
	// Already a member: refused.
	_, err = s.CreateInvitation(ctx, f.alice, models.InviteInput{Email: "BOB@example.com", Role: "owner"})
	wantCode(t, err, models.CodeDuplicate)
}

// Twenty concurrent accepts of one link make exactly one member, for a
// signed-in user and for new people alike.
func TestInvitationConcurrentAccepts(t *testing.T) {
	ctx := context.Background()
	// New people's passwords are hashed: the queue holds all 20, so that
	// under a loaded machine none is turned away as busy (a 429 is not
	// what this test is about).
	f := newFixture(t, func(_ *testing.T, cfg *models.Config) { cfg.PasswordQueueLength = 32 })
	s := f.store
	for _, newPerson := range []bool{false, true} {
		t.Run(fmt.Sprintf("new person %v", newPerson), func(t *testing.T) {
			email := "bob@example.com"
			if newPerson {
				email = "dave@example.com"
			}
			inv := invite(t, s, f.alice, email, models.RoleMember)
			var wg sync.WaitGroup
			var mu sync.Mutex
			ok, gone := 0, 0
			for range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var err error
					if newPerson {
						_, _, err = s.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{Token: inv.Token,
							Password: "a long enough password", PasswordConfirm: "a long enough password"})
					} else {
						_, err = s.AcceptInvitation(ctx, f.bob, inv.Token)
					}
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						ok++
					case models.IsInvitationGone(err):
						gone++
					default:
						t.Errorf("accept: %v", err)
					}
				}()
			}
			wg.Wait()
			if ok != 1 || gone != 19 {
				t.Fatalf("%d accepted, %d gone; want 1 and 19", ok, gone)
			}
			ms, err := s.Members(ctx, f.alice, "")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, m := range ms {
				if m.Email == email {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s is a member %d times", email, n)
			}
			if got := modelstest.AuditCount(t, s, f.alice.AccountID, "invitation"); got < 2 {
				t.Fatalf("%d invitation events", got)
			}
		})
	}
}

// Expired, revoked and replaced links answer "gone"; a resend kills the
// old link and its new one works; a second invitation of an email
// replaces the first; the pending list shows what is still open.
func TestInvitationLinksThatNoLongerWork(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store

	expired := invite(t, s, f.alice, "late@example.com", models.RoleMember)
	f.clock.Advance(models.InvitationTTL)
	if _, err := s.CheckInvitation(ctx, expired.Token); !models.IsInvitationGone(err) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := s.AcceptInvitation(ctx, f.bob, expired.Token); !models.IsInvitationGone(err) {
		t.Fatalf("accept expired: %v", err)
	}

	revoked := invite(t, s, f.alice, "bob@example.com", models.RoleMember)
	if _, err := s.RevokeInvitation(ctx, f.alice, "", revoked.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptInvitation(ctx, f.bob, revoked.Token); !models.IsInvitationGone(err) {
		t.Fatalf("accept revoked: %v", err)
	}
	_, err := s.RevokeInvitation(ctx, f.alice, "", revoked.ID)
	wantCode(t, err, models.CodeNotFound)

	first := invite(t, s, f.alice, "bob@example.com", models.RoleViewer)
	second := invite(t, s, f.alice, "bob@example.com", models.RoleMember)
	if _, err := s.CheckInvitation(ctx, first.Token); !models.IsInvitationGone(err) {
		t.Fatalf("replaced: %v", err)
	}
	resent, err := s.ResendInvitation(ctx, f.alice, "", second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CheckInvitation(ctx, second.Token); !models.IsInvitationGone(err) {
		t.Fatalf("resent's old link: %v", err)
	}
	pending, err := s.Invitations(ctx, f.alice, "")
	if err != nil {
		t.Fatal(err)
	}
	// late@ (expired, still listed so it can be resent) and bob's resent one.
	if len(pending) != 2 || pending[0].ID != resent.ID || pending[0].Role != models.RoleMember {
		t.Fatalf("pending %+v", pending)
	}
	// Bob's invitation is not alice's to bob's account: another owner
	// cannot see or revoke it.
	_, err = s.RevokeInvitation(ctx, f.bob, "", resent.ID)
	wantCode(t, err, models.CodeNotFound)
	// A tampered token is invalid, not gone.
	tampered := resent.Token[:95] + "0"
	if resent.Token[95] == '0' {
		tampered = resent.Token[:95] + "1"
	}
	_, err = s.CheckInvitation(ctx, tampered)
	if models.IsInvitationGone(err) || models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("tampered: %v", err)
	}
	if _, err := s.AcceptInvitation(ctx, f.bob, resent.Token); err != nil {
		t.Fatal(err)
	}
	for _, action := range []string{"created", "resent", "revoked", "accepted"} {
		if !hasEvent(f.events(t, f.alice, "invitation"), action) {
			t.Errorf("no invitation/%s event", action)
		}
	}
}

// An account sends at most 50 invitation mails a day, resends included,
// counted in the database; the next day it may again.
func TestInvitationThrottle(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	var last *models.IssuedInvitation
	for i := range models.InvitationsPerDay {
		last = invite(t, s, f.alice, fmt.Sprintf("p%d@example.com", i), models.RoleViewer)
	}
	_, err := s.CreateInvitation(ctx, f.alice, models.InviteInput{Email: "one-more@example.com", Role: "viewer"})
	wantCode(t, err, models.CodeRateLimited)
	_, err = s.ResendInvitation(ctx, f.alice, "", last.ID)
	wantCode(t, err, models.CodeRateLimited)
	// Another account is not affected.
	invite(t, s, f.bob, "someone@example.com", models.RoleViewer)
	f.clock.Advance(24*time.Hour + time.Second)
	invite(t, s, f.alice, "one-more@example.com", models.RoleViewer)
}

// An owner who is removed or demoted takes back the invitations they
// sent: a link they kept cannot bring them, or anyone, back in. Another
// owner's invitations stay.
func TestInvitationsEndWithTheirInviter(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	carol, _ := modelstest.Member(t, s, f.alice, "carol@example.com", models.RoleOwner)
	dave, _ := modelstest.Member(t, s, f.alice, "dave@example.com", models.RoleOwner)
	byCarol := invite(t, s, carol, "carol.again@example.com", models.RoleOwner)
	byDave := invite(t, s, dave, "friend@example.com", models.RoleMember)
	byAlice := invite(t, s, f.alice, "eve@example.com", models.RoleMember)

	if _, err := s.RemoveMember(ctx, f.alice, models.MemberInput{Member: carol.UserID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMemberRole(ctx, f.alice, models.MemberInput{Member: dave.UserID, Role: models.RoleMember}); err != nil {
		t.Fatal(err)
	}
	for name, inv := range map[string]*models.IssuedInvitation{"the removed owner's": byCarol, "the demoted owner's": byDave} {
		if _, err := s.CheckInvitation(ctx, inv.Token); !models.IsInvitationGone(err) {
			t.Errorf("%s invitation still opens: %v", name, err)
		}
	}
	if _, err := s.CheckInvitation(ctx, byAlice.Token); err != nil {
		t.Errorf("a remaining owner's invitation ended: %v", err)
	}
}
