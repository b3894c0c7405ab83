package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const password = "correct horse battery"

func signIn(t *testing.T, store *models.Store, email string) (*models.Session, string) {
	t.Helper()
	sess, token, err := store.SignIn(context.Background(), models.SignInInput{Email: email, Password: password, SourceIP: "192.0.2.1"})
	if err != nil {
		t.Fatalf("sign in %s: %v", email, err)
	}
	return sess, token
}

// A wrong password, an unknown email and a deactivated user get the same
// answer, so the form tells an attacker nothing about who has an account.
func TestSignInFailuresLookAlike(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	modelstest.Owner(t, store, "gone@example.com")
	if err := store.DB().Model(&models.User{}).Where("email = ?", "gone@example.com").
		Update("status", models.UserDeactivated).Error; err != nil {
		t.Fatal(err)
	}
	for _, in := range []models.SignInInput{
		{Email: "ada@example.com", Password: "wrong password"},
		{Email: "nobody@example.com", Password: password},
		{Email: "gone@example.com", Password: password},
	} {
		_, _, err := store.SignIn(ctx, in)
		if !models.IsBadCredentials(err) {
			t.Errorf("%s: err %v, want bad credentials", in.Email, err)
		}
	}
	// Email is matched case-insensitively.
	sess, token, err := store.SignIn(ctx, models.SignInInput{Email: " ADA@example.com", Password: password})
	if err != nil || sess.UserID != owner.ID || token == "" {
		t.Fatalf("sign in: %v %+v", err, sess)
	}
}

func TestSignInIsAuditedAndTokenIsHashed(t *testing.T) {
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	sess, token := signIn(t, store, "ada@example.com")
	if sess.TokenHash == token || len(sess.CSRFToken) != 64 {
		t.Fatalf("session stores %+v for token %s", sess, token)
	}
	ev := modelstest.PersonalEvents(t, store, owner.ID, 1)[0]
	if ev.ResourceName != "session" || ev.Action != "signed_in" || *ev.ActorLRN != "lrn:cloud:user:"+owner.ID || ev.ActorRole != nil ||
		ev.ResourceLRNs[0] != "lrn:cloud:session:"+sess.ID || ev.AdditionalDetails.Map()["source_ip"] != "192.0.2.1" {
		t.Fatalf("event %+v", ev)
	}
}

func TestSessionTimeouts(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	modelstest.Owner(t, store, "ada@example.com")

	t.Run("idle", func(t *testing.T) {
		_, token := signIn(t, store, "ada@example.com")
		clock.Advance(12 * time.Hour)
		if _, _, err := store.SessionByToken(ctx, token); err != nil {
			t.Fatalf("at the idle timeout: %v", err)
		}
		clock.Advance(12*time.Hour + time.Second)
		if _, _, err := store.SessionByToken(ctx, token); !errors.Is(err, models.ErrNoSession) {
			t.Fatalf("after idling: %v", err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		_, token := signIn(t, store, "ada@example.com")
		for used := time.Duration(0); used < 7*24*time.Hour; used += 11 * time.Hour {
			if _, _, err := store.SessionByToken(ctx, token); err != nil {
				t.Fatalf("after %v in use: %v", used, err)
			}
			clock.Advance(11 * time.Hour)
		}
		if _, _, err := store.SessionByToken(ctx, token); !errors.Is(err, models.ErrNoSession) {
			t.Fatalf("after 7 days: %v", err)
		}
	})
}

// Last-seen is written at most once a minute, so a busy page costs reads.
func TestSessionLastSeenIsWrittenOncePerMinute(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	modelstest.Owner(t, store, "ada@example.com")
	start, token := signIn(t, store, "ada@example.com")
	clock.Advance(59 * time.Second)
	sess, _, err := store.SessionByToken(ctx, token)
	if err != nil || !sess.LastSeenAt.Equal(start.LastSeenAt) {
		t.Fatalf("after 59s last seen %v (err %v), want unchanged %v", sess.LastSeenAt, err, start.LastSeenAt)
	}
	clock.Advance(time.Second)
	if _, _, err := store.SessionByToken(ctx, token); err != nil {
		t.Fatal(err)
	}
	var stored models.Session
	if err := store.DB().Where("id = ?", start.ID).Take(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if !stored.LastSeenAt.Equal(clock.Now()) {
		t.Fatalf("after a minute last seen %v, want %v", stored.LastSeenAt, clock.Now())
	}
}

// Signing in with a session already in the browser ends that session, so
// a token planted before sign-in is worthless after it.
func TestSignInRotatesTheSession(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	modelstest.Owner(t, store, "ada@example.com")
	_, old := signIn(t, store, "ada@example.com")
	_, token, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password, ReplacesToken: old})
	if err != nil || token == old {
		t.Fatalf("sign in: %v", err)
	}
	if _, _, err := store.SessionByToken(ctx, old); !errors.Is(err, models.ErrNoSession) {
		t.Fatalf("old session: %v", err)
	}
	if _, _, err := store.SessionByToken(ctx, token); err != nil {
		t.Fatalf("new session: %v", err)
	}
}

func TestSignOut(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	sess, token := signIn(t, store, "ada@example.com")
	if err := store.SignOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.SessionByToken(ctx, token); !errors.Is(err, models.ErrNoSession) {
		t.Fatalf("after sign-out: %v", err)
	}
	if err := store.SignOut(ctx, token); err != nil {
		t.Fatalf("second sign-out: %v", err)
	}
	events := modelstest.PersonalEvents(t, store, owner.ID, 1)
	if events[0].Action != "signed_out" || events[0].ResourceLRNs[0] != "lrn:cloud:session:"+sess.ID {
		t.Fatalf("event %+v", events[0])
	}
}

func TestSessionFlashIsShownOnce(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	modelstest.Owner(t, store, "ada@example.com")
	sess, token := signIn(t, store, "ada@example.com")
	if err := store.SetSessionFlash(ctx, sess.ID, "Key “deploy” revoked."); err != nil {
		t.Fatal(err)
	}
	got, _, _ := store.SessionByToken(ctx, token)
	if got.Flash != "Key “deploy” revoked." {
		t.Fatalf("flash %q", got.Flash)
	}
	if err := store.ClearSessionFlash(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if got, _, _ = store.SessionByToken(ctx, token); got.Flash != "" {
		t.Fatalf("flash after clearing %q", got.Flash)
	}
}

func TestChangePassword(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	current, _ := signIn(t, store, "ada@example.com")
	_, other := signIn(t, store, "ada@example.com")
	actor := owner.Actor()
	actor.SessionID = current.ID

	for _, tc := range []struct {
		name  string
		in    models.ChangePasswordInput
		field string
	}{
		{"wrong current", models.ChangePasswordInput{CurrentPassword: "nope nope nope", NewPassword: "a new password", NewPasswordConfirm: "a new password"}, "current_password"},
		{"missing current", models.ChangePasswordInput{NewPassword: "a new password", NewPasswordConfirm: "a new password"}, "current_password"},
		{"too short", models.ChangePasswordInput{CurrentPassword: password, NewPassword: "short", NewPasswordConfirm: "short"}, "new_password"},
		{"mismatch", models.ChangePasswordInput{CurrentPassword: password, NewPassword: "a new password", NewPasswordConfirm: "a new passwrod"}, "new_password_confirm"},
	} {
		err := store.ChangePassword(ctx, actor, tc.in)
		if e, ok := models.AsError(err); !ok || e.Fields[tc.field] == "" {
			t.Errorf("%s: err %v, want a message on %s", tc.name, err, tc.field)
		}
	}

	in := models.ChangePasswordInput{CurrentPassword: password, NewPassword: "a new password", NewPasswordConfirm: "a new password"}
	if err := store.ChangePassword(ctx, actor, in); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password}); !models.IsBadCredentials(err) {
		t.Fatalf("old password: %v", err)
	}
	if _, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: "a new password"}); err != nil {
		t.Fatalf("new password: %v", err)
	}
	if _, _, err := store.SessionByToken(ctx, other); !errors.Is(err, models.ErrNoSession) {
		t.Fatalf("other session survived: %v", err)
	}
	var kept int64
	store.DB().Model(&models.Session{}).Where("id = ?", current.ID).Count(&kept)
	if kept != 1 {
		t.Fatal("the session that changed the password was ended")
	}
}

// A password reset link, once used, signs its user in as a sign-in does:
// every earlier session ends, the new token works, and the log holds
// user/updated and session/signed_in with the address. The link works
// once.
func TestPasswordResetLinkStartsASession(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	_, before := signIn(t, store, "ada@example.com")
	link := modelstest.Must[string](t)(store.StartPasswordReset(ctx, models.OperatorActor, "ada@example.com"))
	in := models.PasswordResetInput{Token: link, Password: "a new password", PasswordConfirm: "a new password", SourceIP: "192.0.2.9"}
	sess, token, err := store.CompletePasswordReset(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.SessionByToken(ctx, before); !errors.Is(err, models.ErrNoSession) {
		t.Fatalf("session from before the reset: %v", err)
	}
	if got, u, err := store.SessionByToken(ctx, token); err != nil || got.ID != sess.ID || u.ID != owner.ID {
		t.Fatalf("new session %+v of %+v: %v", got, u, err)
	}
	// One transaction writes both, maybe within one tick of the clock.
	events := map[string]models.AuditEvent{}
	for _, ev := range modelstest.PersonalEvents(t, store, owner.ID, 2) {
		events[ev.ResourceName+"/"+ev.Action] = ev
	}
	signedIn, ok := events["session/signed_in"]
	if _, updated := events["user/updated"]; !ok || !updated ||
		signedIn.ResourceLRNs[0] != "lrn:cloud:session:"+sess.ID || signedIn.AdditionalDetails.Map()["source_ip"] != "192.0.2.9" {
		t.Fatalf("events %+v", events)
	}
	if _, _, err := store.CompletePasswordReset(ctx, in); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("second use of the link: %v", err)
	}
}

// Starting a session drops the user's expired ones, so abandoned sessions
// do not pile up; live ones stay.
func TestSignInDropsExpiredSessions(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	signIn(t, store, "ada@example.com")
	signIn(t, store, "ada@example.com")
	clock.Advance(24*time.Hour + time.Second)
	_, live := signIn(t, store, "ada@example.com")
	signIn(t, store, "ada@example.com")
	var n int64
	if err := store.DB().Model(&models.Session{}).Where("user_id = ?", owner.ID).Count(&n).Error; err != nil || n != 2 {
		t.Fatalf("%d sessions (%v), want the 2 live ones", n, err)
	}
	if _, _, err := store.SessionByToken(ctx, live); err != nil {
		t.Fatalf("live session: %v", err)
	}
}

// A user's personal events (sign-in, email change, password reset and
// change, sign-out) are the platform's, not any team's: neither the
// account Alice left nor the one her session acts on shows them (her new
// address, her IP), and none names a role; each is recorded once, in the
// platform's log, with Alice as actor.
func TestPersonalEventsLandInNoAccount(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	carol, _ := join(t, s, f.alice, "carol@example.com", models.RoleOwner)
	bobs, _ := join(t, s, f.bob, "alice@example.com", models.RoleViewer) // alice works in bob's account
	if _, err := s.LeaveAccount(ctx, f.alice); err != nil {
		t.Fatal(err)
	}
	sess, token := signIn(t, s, "alice@example.com")
	if err := s.RequestEmailChange(ctx, bobs, models.EmailChangeInput{NewEmail: "alice-private@example.net", CurrentPassword: password}); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPasswordReset(ctx, "alice@example.com", "203.0.113.9"); err != nil {
		t.Fatal(err)
	}
	resolveAll(t, s) // the worker issues the link, and records it, as it sends
	acting := bobs
	acting.SessionID = sess.ID
	if err := s.ChangePassword(ctx, acting, models.ChangePasswordInput{CurrentPassword: password,
		NewPassword: "another good password", NewPasswordConfirm: "another good password"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SignOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	for _, a := range []models.Actor{carol, f.bob} {
		page := modelstest.Must[*models.AuditPage](t)(s.AuditEvents(ctx, a, models.AuditEventsInput{}))
		for _, ev := range page.Events {
			if ev.ResourceName == "session" || (ev.ResourceName == "user" && ev.Action == "updated") {
				t.Errorf("%s's account log shows alice's personal event %s/%s %s", a.Email, ev.ResourceName, ev.Action, ev.AdditionalDetails)
			}
		}
	}
	got := map[string]int{}
	for _, ev := range modelstest.PersonalEvents(t, s, f.alice.UserID, 10) {
		if ev.ActorRole != nil || *ev.ActorLRN != "lrn:cloud:user:"+f.alice.UserID {
			t.Errorf("personal event %s/%s by %s as %v", ev.ResourceName, ev.Action, *ev.ActorLRN, *ev.ActorRole)
		}
		got[ev.ResourceName+"/"+ev.Action]++
	}
	if got["session/signed_in"] != 1 || got["session/signed_out"] != 1 || got["user/updated"] != 3 {
		t.Fatalf("personal events %v, want a sign-in, a sign-out and 3 updates", got)
	}
}

// A session remembers the browser and the way its user proved who they
// are, and counts as recently authenticated until ReauthWindow has passed.
func TestSessionRecordsItsOrigin(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	modelstest.Owner(t, store, "ada@example.com")
	_, token, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password,
		SourceIP: "192.0.2.1", UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0"})
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := store.SessionByToken(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if sess.UserAgent != "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0" || sess.AuthMethod != models.MethodPassword {
		t.Fatalf("session %q %q", sess.UserAgent, sess.AuthMethod)
	}
	if !sess.RecentlyAuthenticated(clock.Now()) {
		t.Fatal("a new session is not recently authenticated")
	}
	clock.Advance(models.ReauthWindow)
	if sess, _, err = store.SessionByToken(ctx, token); err != nil || sess.RecentlyAuthenticated(clock.Now()) {
		t.Fatalf("after %s: err %v, still recent", models.ReauthWindow, err)
	}
}
