package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// pendingPasskey answers the pending sign-in's passkey options with auth.
func pendingPasskey(t *testing.T, store *models.Store, pending string, auth *modelstest.Authenticator) (*models.SignedIn, error) {
	t.Helper()
	options, err := store.BeginPendingPasskey(context.Background(), testRP, pending)
	if err != nil {
		t.Fatalf("passkey options of the pending sign-in: %v", err)
	}
	return store.CompletePendingPasskey(context.Background(), testRP, pending, auth.Assert(t, options))
}

// A passkey is a second factor: the password of a user with one (and no
// TOTP) leaves a pending sign-in, which the passkey finishes as
// "password+passkey"; the options name the user's passkeys only.
func TestPasskeyIsASecondFactor(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	p, auth := addPasskey(t, store, u.Actor(), "Laptop")
	clock.Advance(time.Minute)
	if f, err := store.UserSecondFactors(ctx, u.ID); err != nil || !f.Passkey || f.TOTP {
		t.Fatalf("second factors %+v, %v", f, err)
	}

	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	options, err := store.BeginPendingPasskey(ctx, testRP, pending)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(options), `"allowCredentials":[{"type":"public-key","id":"`+p.CredentialID+`"`) {
		t.Fatalf("options do not name the user's passkey: %s", options)
	}
	// A TOTP code does not finish it: there is none.
	if _, err := store.CompletePendingSignIn(ctx, pending, "123456"); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("a code without TOTP: %v", err)
	}
	done, err := store.CompletePendingPasskey(ctx, testRP, pending, auth.Assert(t, options))
	if err != nil {
		t.Fatal(err)
	}
	if done.Session.AuthMethod != "password+passkey" || done.Next != "/api-keys" || done.Session.UserID != u.ID {
		t.Fatalf("session %+v, next %q", done.Session, done.Next)
	}
	ev := modelstest.PersonalEvents(t, store, u.ID, 1)[0]
	if ev.Action != "signed_in" || !strings.Contains(string(ev.AdditionalDetails), `"method":"password+passkey"`) {
		t.Fatalf("event %s %s", ev.Action, ev.AdditionalDetails)
	}
	var stored models.Passkey
	if err := store.DB().Where("id = ?", p.ID).Take(&stored).Error; err != nil || stored.LastUsedAt == nil || stored.SignCount != 1 {
		t.Fatalf("passkey use not recorded: %+v %v", stored, err)
	}
	// Used up: the pending sign-in and its ceremony are gone.
	if _, err := store.CompletePendingPasskey(ctx, testRP, pending, auth.Assert(t, options)); !models.IsPendingInvalid(err) {
		t.Fatalf("a finished pending sign-in again: %v", err)
	}
}

// Threat: the second step accepts only the pending user's own passkey.
// Bob, who knows Ada's password, answers her passkey step with his own
// passkey (valid, of this site, signing her challenge) and is refused;
// so is an answer to options that another pending sign-in was given.
func TestPendingPasskeyOfAnotherUserIsRefused(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	bob, _ := modelstest.Owner(t, store, "bob@example.com")
	_, adaKey := addPasskey(t, store, ada.Actor(), "Ada's key")
	_, bobKey := addPasskey(t, store, bob.Actor(), "Bob's key")
	clock.Advance(time.Minute)

	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if _, err := pendingPasskey(t, store, pending, bobKey); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("bob's passkey for ada's sign-in: %v", err)
	}
	// Options given to another pending sign-in (bob's own) do not answer ada's.
	bobPending := halfSignIn(t, store, "bob@example.com", models.PendingSecondFactor)
	bobOptions, err := store.BeginPendingPasskey(ctx, testRP, bobPending)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CompletePendingPasskey(ctx, testRP, pending, bobKey.Assert(t, bobOptions)); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("another pending sign-in's ceremony: %v", err)
	}
	var n int64
	store.DB().Model(&models.Session{}).Count(&n)
	if n != 0 {
		t.Fatalf("%d sessions after refused passkeys", n)
	}
	// Ada's own passkey still finishes it: the refusals only counted.
	if done, err := pendingPasskey(t, store, pending, adaKey); err != nil || done.Session.UserID != ada.ID {
		t.Fatalf("ada's own passkey: %v", err)
	}
}

// Passkey answers count against the pending sign-in's attempts as codes
// do: after MaxPendingAttempts it is gone, even for the right passkey.
func TestPendingPasskeyAttemptsAreCapped(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	_, adaKey := addPasskey(t, store, ada.Actor(), "Ada's key")
	clock.Advance(time.Minute)
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	for i := 0; i < models.MaxPendingAttempts; i++ {
		if _, err := store.BeginPendingPasskey(ctx, testRP, pending); err != nil {
			t.Fatal(err)
		}
		if _, err := store.CompletePendingPasskey(ctx, testRP, pending, []byte("{}")); models.ErrorCode(err) != models.CodeForbidden {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if _, err := store.BeginPendingPasskey(ctx, testRP, pending); !models.IsPendingInvalid(err) {
		t.Fatalf("options after the cap: %v", err)
	}
	if _, err := store.CompletePendingPasskey(ctx, testRP, pending, adaKey.Assert(t, []byte(`{"publicKey":{"challenge":"AAAA","rpId":"console.example.com"}}`))); !models.IsPendingInvalid(err) {
		t.Fatalf("the right passkey after the cap: %v", err)
	}
}

// A required second factor is met by a passkey: the member signs in with
// password and passkey, not sent to enrol; TOTP may be turned off while a
// passkey remains, and the last passkey cannot go while nothing else
// would meet the rule.
func TestRequiredSecondFactorMetByPasskey(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	member, _ := modelstest.Member(t, store, owner.Actor(), "bob@example.com", models.RoleMember)
	first, auth := addPasskey(t, store, member, "Phone")
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	pending := halfSignIn(t, store, "bob@example.com", models.PendingSecondFactor)
	if done, err := pendingPasskey(t, store, pending, auth); err != nil || done.Session.AuthMethod != "password+passkey" {
		t.Fatalf("required member with a passkey: %v", err)
	}

	// With TOTP as well, TOTP may be turned off: the passkey remains.
	secret, _ := enrol(t, store, clock, member)
	if st, err := store.SecondFactorStatus(ctx, member); err != nil || st.Required {
		t.Fatalf("status with a passkey: %+v %v", st, err)
	}
	if err := store.DisableSecondFactor(ctx, member, totpAt(t, secret, clock.Now())); err != nil {
		t.Fatalf("turning TOTP off with a passkey left: %v", err)
	}
	// The last passkey is the second factor now.
	_, err := store.DeletePasskey(ctx, member, first.ID)
	if e, ok := models.AsError(err); !ok || e.Code != models.CodeForbidden || !strings.Contains(e.Message, "last passkey") {
		t.Fatalf("removing the last required passkey: %v", err)
	}
	second, _ := addPasskey(t, store, member, "Key")
	if _, err := store.DeletePasskey(ctx, member, first.ID); err != nil {
		t.Fatalf("removing one of two passkeys: %v", err)
	}
	if _, err := store.DeletePasskey(ctx, member, second.ID); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("removing the last one: %v", err)
	}
	// Not required any more: the last passkey may go.
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeletePasskey(ctx, member, second.ID); err != nil {
		t.Fatalf("removing the last passkey when not required: %v", err)
	}
}

// The operator's reset removes passkeys too, in the same event: the
// password alone signs in again.
func TestResetSecondFactorRemovesPasskeys(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	enrol(t, store, clock, u.Actor())
	addPasskey(t, store, u.Actor(), "Laptop")
	clock.Advance(time.Second) // the names are listed oldest first
	addPasskey(t, store, u.Actor(), "Phone")
	halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if err := store.ResetSecondFactor(ctx, models.OperatorActor, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if has, err := store.UserHasPasskey(ctx, u.ID); has || err != nil {
		t.Fatalf("passkeys left after the reset: %v %v", has, err)
	}
	ev := modelstest.PersonalEvents(t, store, u.ID, 1)[0]
	if ev.Action != "second_factor_reset" || !strings.Contains(string(ev.AdditionalDetails), `"passkeys_removed":["Laptop","Phone"]`) {
		t.Fatalf("reset event %s %s", ev.Action, ev.AdditionalDetails)
	}
	signIn(t, store, "ada@example.com")
}

// A passkey sign-in from a browser without the user's device cookie is
// new (mailed); with it, it is not.
func TestPasskeySignInNewBrowser(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	signIn(t, store, "ada@example.com") // not the first sign-in ever
	_, auth := addPasskey(t, store, u.Actor(), "Laptop")
	clock.Advance(time.Minute)
	mails := func() int64 {
		var n int64
		store.DB().Model(&models.MailMessage{}).Where("kind = ?", models.MailNewSignIn).Count(&n)
		return n
	}
	cookie, err := store.IssueDeviceCookie(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cookie string
		want   int64
	}{{cookie, 0}, {"", 1}} {
		options, token, err := store.BeginPasskeySignIn(ctx, testRP)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := store.PasskeySignIn(ctx, testRP, models.PasskeySignInInput{Token: token,
			Credential: auth.Assert(t, options), DeviceCookie: tc.cookie}); err != nil {
			t.Fatal(err)
		}
		if n := mails(); n != tc.want {
			t.Fatalf("cookie %q: %d mails, want %d", tc.cookie, n, tc.want)
		}
		clock.Advance(time.Minute)
	}
}

// A member an account requires to have a second factor may enrol a
// passkey instead of TOTP: the session starts with it ("password+passkey"),
// the passkey is stored and recorded, and it is their second step from
// then on.
func TestPendingEnrolmentWithAPasskey(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	member, _ := modelstest.Member(t, store, owner.Actor(), "bob@example.com", models.RoleMember)
	pending := halfSignIn(t, store, "bob@example.com", models.PendingEnrol)
	if _, err := store.BeginPendingPasskey(ctx, testRP, pending); !models.IsPendingInvalid(err) {
		t.Fatalf("second-step options for an enrolment: %v", err)
	}
	options, err := store.BeginPendingPasskeyEnrolment(ctx, testRP, pending)
	if err != nil {
		t.Fatal(err)
	}
	auth := modelstest.NewAuthenticator(t, testRP.Origin)
	cred := auth.Register(t, options)
	if _, err := store.CompletePendingPasskeyEnrolment(ctx, testRP, pending, models.AddPasskeyInput{Name: "", Credential: cred}); models.ErrorCode(err) != models.CodeInvalidParameters {
		t.Fatalf("no name: %v", err)
	}
	done, err := store.CompletePendingPasskeyEnrolment(ctx, testRP, pending, models.AddPasskeyInput{Name: "Phone", Credential: cred})
	if err != nil {
		t.Fatal(err)
	}
	if done.Session.AuthMethod != "password+passkey" || done.Session.UserID != member.UserID || done.Next != "/api-keys" {
		t.Fatalf("session %+v next %q", done.Session, done.Next)
	}
	// One transaction, one instant: the two events in either order.
	seen := map[string]bool{}
	for _, ev := range modelstest.PersonalEvents(t, store, member.UserID, 2) {
		seen[ev.ResourceName+"/"+ev.Action] = true
	}
	if !seen["passkey/created"] || !seen["session/signed_in"] {
		t.Fatalf("events %v", seen)
	}
	clock.Advance(time.Minute)
	next := halfSignIn(t, store, "bob@example.com", models.PendingSecondFactor)
	if _, err := pendingPasskey(t, store, next, auth); err != nil {
		t.Fatalf("the enrolled passkey as second step: %v", err)
	}
}
