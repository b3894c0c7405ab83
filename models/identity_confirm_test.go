package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
)

// ssoActor signs subject in through "corp" and returns its session's actor.
func ssoActor(t *testing.T, s *models.Store, subject, email string) models.Actor {
	t.Helper()
	_, token, err := ssoSignIn(t, s, subject, email)
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := s.SessionByToken(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	return sess.Acting
}

// takeReauth begins and takes a re-authentication through "corp" for actor.
func takeReauth(t *testing.T, s *models.Store, actor models.Actor) *models.SSOLogin {
	t.Helper()
	ctx := context.Background()
	start, err := s.BeginSSOReauth(ctx, actor, "corp", "/api-keys")
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	if err != nil {
		t.Fatal(err)
	}
	if l.Purpose != models.SSOPurposeReauth || l.UserID != actor.UserID || l.Next != "/api-keys" || l.Provider != "corp" {
		t.Fatalf("taken %+v", l)
	}
	return l
}

// Single sign-on confirms a session's user only with a re-authentication
// that user began, an identity linked to them, and a recent sign-in at
// the provider; a sign-in's attempt is not a confirmation.
func TestConfirmIdentityWithSSO(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	// Each connected their identity (corp.example is linked to nothing).
	for _, who := range []string{"alice", "mallory"} {
		if err := connectSSO(t, s, f.owner(t, who+"@corp.example"), "corp", who+"-sub", who+"@corp.example"); err != nil {
			t.Fatal(err)
		}
	}
	alice := ssoActor(t, s, "alice-sub", "alice@corp.example")
	aliceElsewhere := ssoActor(t, s, "alice-sub", "alice@corp.example")
	mallory := ssoActor(t, s, "mallory-sub", "mallory@corp.example")
	f.clock.Advance(models.ReauthWindow + time.Second)
	now := f.clock.Now()

	start, _ := s.BeginSSOLogin(ctx, "corp", "/api-keys")
	signIn, err := s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	if err != nil || signIn.Purpose != "" || signIn.Next != "/api-keys" {
		t.Fatalf("sign-in login %+v %v", signIn, err)
	}
	recent := func() bool {
		var sess models.Session
		if err := s.DB().Where("id = ?", alice.SessionID).Take(&sess).Error; err != nil {
			t.Fatal(err)
		}
		return sess.RecentlyAuthenticated(f.clock.Now())
	}
	for name, in := range map[string]models.SSOReauth{
		"a sign-in's attempt":     {Login: signIn, Subject: "alice-sub", AuthTime: now},
		"another user's identity": {Login: takeReauth(t, s, alice), Subject: "mallory-sub", AuthTime: now},
		"an unlinked identity":    {Login: takeReauth(t, s, alice), Subject: "stranger-sub"},
		"begun by another user":   {Login: takeReauth(t, s, mallory), Subject: "alice-sub", AuthTime: now},
		"an old sign-in":          {Login: takeReauth(t, s, alice), Subject: "alice-sub", AuthTime: now.Add(-time.Hour)},
		// max_age was sent, so OpenID Connect requires auth_time.
		"no auth_time": {Login: takeReauth(t, s, alice), Subject: "alice-sub"},
		// Begun in alice's other session: it confirms that one only.
		"begun in another session": {Login: takeReauth(t, s, aliceElsewhere), Subject: "alice-sub", AuthTime: now},
	} {
		if err := s.ConfirmIdentityWithSSO(ctx, alice, in); models.ErrorCode(err) != models.CodeForbidden || recent() {
			t.Fatalf("%s: %v, recent %v", name, err, recent())
		}
	}
	m, err := s.ReauthMethods(ctx, alice)
	if err != nil || !m.Password || len(m.SSOProviders) != 1 || m.SSOProviders[0] != "corp" {
		t.Fatalf("methods %+v %v", m, err)
	}
	if err := s.ConfirmIdentityWithSSO(ctx, alice, models.SSOReauth{Login: takeReauth(t, s, alice), Subject: "alice-sub",
		AuthTime: now}); err != nil {
		t.Fatal(err)
	}
	var n int64
	s.DB().Model(&models.AuditEvent{}).Where("account_id = '' AND action = 'reauthenticated' AND additional_details LIKE ?",
		`%"method":"sso:corp"%`).Count(&n)
	if n != 1 {
		t.Fatalf("%d sso:corp reauthenticated events, want 1", n)
	}
}

// A user who joined just in time has no password: ReauthMethods says so,
// the password is refused outright, and an email change needs a recent
// confirmation instead.
func TestJustInTimeUserHasNoPassword(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	linkCorp(t, f, models.RoleMember)
	bob := ssoActor(t, s, "bob-sub", "bob@corp.example")
	m, err := s.ReauthMethods(ctx, bob)
	if err != nil || m.Password || m.SecondFactor || m.Passkey || len(m.SSOProviders) != 1 {
		t.Fatalf("methods %+v %v", m, err)
	}
	wantCode(t, s.ConfirmIdentity(ctx, bob, models.IdentityProof{Password: ""}), models.CodeForbidden)
	in := models.EmailChangeInput{NewEmail: "robert@corp.example"} // within the linked domain
	if err := s.RequestEmailChange(ctx, bob, in); err != nil {
		t.Fatalf("email change in a fresh session: %v", err)
	}
	f.clock.Advance(models.ReauthWindow + time.Second)
	if err := s.RequestEmailChange(ctx, bob, in); err != models.ErrReauthRequired {
		t.Fatalf("email change after the window: %v, want ErrReauthRequired", err)
	}
	if err := s.ConfirmIdentityWithSSO(ctx, bob, models.SSOReauth{Login: takeReauth(t, s, bob), Subject: "bob-sub",
		AuthTime: f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if err := s.RequestEmailChange(ctx, bob, in); err != nil {
		t.Fatalf("email change after confirming: %v", err)
	}
}
