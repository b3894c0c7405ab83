package models_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// eventDetails decodes the details of userID's last personal event, which
// must be resource/action.
func eventDetails(t *testing.T, store *models.Store, userID, resource, action string) map[string]any {
	t.Helper()
	for _, ev := range modelstest.PersonalEvents(t, store, userID, 5) {
		if ev.ResourceName == resource && ev.Action == action {
			var d map[string]any
			if err := json.Unmarshal([]byte(ev.AdditionalDetails), &d); err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("no %s/%s event", resource, action)
	return nil
}

// mailsTo counts the messages of kind queued to recipient.
func mailsTo(t *testing.T, store *models.Store, kind, recipient string) int64 {
	t.Helper()
	var n int64
	if err := store.DB().Model(&models.MailMessage{}).Where("kind = ? AND recipient = ?", kind, recipient).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// A half-finished sign-in, made with the old password, does not outlive a
// change of password or a reset: its right code no longer signs in. The
// events say how many sessions ended.
func TestPasswordChangeEndsHalfSignIns(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	ada := signedInWithCode(t, store, secret, clock)
	clock.Advance(30 * time.Second)
	signedInWithCode(t, store, secret, clock) // a second session, ended by the change
	clock.Advance(30 * time.Second)
	if err := store.ChangePassword(ctx, ada, models.ChangePasswordInput{CurrentPassword: password,
		NewPassword: "a new long password", NewPasswordConfirm: "a new long password"}); err != nil {
		t.Fatal(err)
	}
	if d := eventDetails(t, store, u.ID, "user", "updated"); d["sessions_ended"] != float64(1) {
		t.Fatalf("user/updated details %v, want sessions_ended 1", d)
	}
	if _, err := store.CompletePendingSignIn(ctx, pending, totpAt(t, secret, clock.Now())); !models.IsPendingInvalid(err) {
		t.Fatalf("pending sign-in after a password change: %v, want IsPendingInvalid", err)
	}

	clock.Advance(30 * time.Second)
	signedInWithCode(t, store, secret, clock, "a new long password")
	clock.Advance(30 * time.Second)
	_, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: "a new long password", SourceIP: "192.0.2.1"})
	step, ok := models.AsSecondStep(err)
	if !ok {
		t.Fatalf("sign-in: %v", err)
	}
	token, err := store.StartPasswordReset(ctx, models.OperatorActor, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = store.CompletePasswordReset(ctx, models.PasswordResetInput{Token: token,
		Password: "a third long password", PasswordConfirm: "a third long password"})
	if _, ok := models.AsSecondStep(err); !ok {
		t.Fatalf("reset: %v, want a second step", err)
	}
	if d := eventDetails(t, store, u.ID, "user", "updated"); d["sessions_ended"] != float64(2) {
		t.Fatalf("user/updated details after the reset %v, want sessions_ended 2", d)
	}
	if _, err := store.CompletePendingSignIn(ctx, step.Token, totpAt(t, secret, clock.Now())); !models.IsPendingInvalid(err) {
		t.Fatalf("pending sign-in after a reset: %v, want IsPendingInvalid", err)
	}
}

// signedInWithCode signs ada in with a password (default: the fixture's)
// and a TOTP code of now, and returns the session's actor.
func signedInWithCode(t *testing.T, store *models.Store, secret string, clock *modelstest.Clock, pw ...string) models.Actor {
	t.Helper()
	ctx := context.Background()
	p := password
	if len(pw) > 0 {
		p = pw[0]
	}
	_, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: p, SourceIP: "192.0.2.1"})
	step, ok := models.AsSecondStep(err)
	if !ok {
		t.Fatalf("sign-in: %v", err)
	}
	done, err := store.CompletePendingSignIn(ctx, step.Token, totpAt(t, secret, clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := store.SessionByToken(ctx, done.Token)
	if err != nil {
		t.Fatal(err)
	}
	return sess.Acting
}

// The operator's reset-2fa signs the user out everywhere, drops their
// half-finished sign-ins, mails them and records how many sessions ended.
func TestResetSecondFactorEndsSessionsAndMails(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	signedInWithCode(t, store, secret, clock)
	clock.Advance(30 * time.Second)
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if err := store.ResetSecondFactor(ctx, models.OperatorActor, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	var left int64
	if err := store.DB().Model(&models.Session{}).Where("user_id = ?", u.ID).Count(&left).Error; err != nil || left != 0 {
		t.Fatalf("%d sessions after reset-2fa (%v)", left, err)
	}
	if _, err := store.PendingSignInByToken(ctx, pending); !models.IsPendingInvalid(err) {
		t.Fatalf("pending sign-in after reset-2fa: %v", err)
	}
	if n := mailsTo(t, store, models.MailFactorRemoved, "ada@example.com"); n != 1 {
		t.Fatalf("%d factor_removed mails, want 1", n)
	}
	if d := eventDetails(t, store, u.ID, "user", "second_factor_reset"); d["sessions_ended"] != float64(1) {
		t.Fatalf("second_factor_reset details %v, want sessions_ended 1", d)
	}
}

// Turning TOTP on signs out the user's other sessions, not the one doing
// it; turning it off keeps sessions but drops half-finished sign-ins and
// mails the user.
func TestTOTPOnEndsOtherSessionsOffMails(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	modelstest.Owner(t, store, "ada@example.com")
	here := signInAs(t, store, "ada@example.com", "Firefox", models.Device{})
	clock.Advance(time.Second)
	signInAs(t, store, "ada@example.com", "Chrome", models.Device{})
	secret, _ := enrol(t, store, clock, here)
	if got := sessionIDs(t, store, here); len(got) != 1 || got[0] != here.SessionID {
		t.Fatalf("sessions after turning TOTP on: %v, want only %s", got, here.SessionID)
	}
	if d := eventDetails(t, store, here.UserID, "user", "second_factor_enabled"); d["sessions_ended"] != float64(1) {
		t.Fatalf("second_factor_enabled details %v, want sessions_ended 1", d)
	}
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if err := store.DisableSecondFactor(ctx, here, totpAt(t, secret, clock.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PendingSignInByToken(ctx, pending); !models.IsPendingInvalid(err) {
		t.Fatalf("pending sign-in after TOTP off: %v", err)
	}
	if n := mailsTo(t, store, models.MailFactorRemoved, "ada@example.com"); n != 1 {
		t.Fatalf("%d factor_removed mails, want 1", n)
	}
}

// The first passkey signs out the user's other sessions, a second one
// does not; removing one mails the user and drops half-finished
// sign-ins.
func TestFirstPasskeyEndsOtherSessionsRemovalMails(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	modelstest.Owner(t, store, "ada@example.com")
	here := signInAs(t, store, "ada@example.com", "Firefox", models.Device{})
	clock.Advance(time.Second)
	signInAs(t, store, "ada@example.com", "Chrome", models.Device{})
	first, auth := addPasskey(t, store, here, "Laptop")
	if got := sessionIDs(t, store, here); len(got) != 1 || got[0] != here.SessionID {
		t.Fatalf("sessions after the first passkey: %v, want only %s", got, here.SessionID)
	}
	clock.Advance(time.Second)
	if _, err := passkeySignIn(store, t, auth); err != nil {
		t.Fatal(err)
	}
	addPasskey(t, store, here, "Phone")
	if got := sessionIDs(t, store, here); len(got) != 2 {
		t.Fatalf("sessions after a second passkey: %v, want 2", got)
	}
	if _, err := store.DeletePasskey(ctx, here, first.ID); err != nil {
		t.Fatal(err)
	}
	if n := mailsTo(t, store, models.MailFactorRemoved, "ada@example.com"); n != 1 {
		t.Fatalf("%d factor_removed mails, want 1", n)
	}
}

// A pending sign-in started with a password is refused once the user's
// domain is linked to single sign-on, even with the right code.
func TestPendingSignInRefusedOnceDomainLinked(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	owner := f.owner(t, "alice@corp.example")
	secret, _ := enrol(t, f.store, f.clock, owner)
	pending := halfSignIn(t, f.store, "alice@corp.example", models.PendingSecondFactor)
	if err := connectSSO(t, f.store, owner, "corp", "alice-sub", "alice@corp.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.LinkSSODomain(ctx, owner, models.SSODomainInput{Domain: "corp.example", Provider: "corp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CompletePendingSignIn(ctx, pending, totpAt(t, secret, f.clock.Now())); !models.IsSSORequired(err) {
		t.Fatalf("pending sign-in after the domain was linked: %v, want IsSSORequired", err)
	}
}
