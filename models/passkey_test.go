package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

var testRP = models.RelyingParty{ID: "console.example.com", Origin: "https://console.example.com"}

// addPasskey registers a software authenticator's credential for the user.
func addPasskey(t *testing.T, store *models.Store, actor models.Actor, name string) (*models.Passkey, *modelstest.Authenticator) {
	t.Helper()
	ctx := context.Background()
	options, token, err := store.BeginPasskeyRegistration(ctx, actor, testRP)
	if err != nil {
		t.Fatal(err)
	}
	auth := modelstest.NewAuthenticator(t, testRP.Origin)
	p, err := store.AddPasskey(ctx, actor, testRP, models.AddPasskeyInput{Name: name, Token: token, Credential: auth.Register(t, options)})
	if err != nil {
		t.Fatalf("add passkey: %v", err)
	}
	return p, auth
}

func passkeySignIn(store *models.Store, t *testing.T, auth *modelstest.Authenticator) (*models.Session, error) {
	t.Helper()
	options, token, err := store.BeginPasskeySignIn(context.Background(), testRP)
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := store.PasskeySignIn(context.Background(), testRP, models.PasskeySignInInput{
		Token: token, Credential: auth.Assert(t, options), SourceIP: "192.0.2.7"})
	return sess, err
}

func TestRelyingPartyFromBaseURL(t *testing.T) {
	for url, want := range map[string]models.RelyingParty{
		"https://Console.Example.com/":  {ID: "console.example.com", Origin: "https://console.example.com"},
		"http://localhost:8080/prefix/": {ID: "localhost", Origin: "http://localhost:8080"},
	} {
		if got, err := models.NewRelyingParty(url); err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", url, got, err, want)
		}
	}
	if _, err := models.NewRelyingParty("console.example.com"); err == nil {
		t.Error("a base URL without a scheme is accepted")
	}
}

// A passkey signs its user in alone, as method "passkey"; the event says
// so, and the stored counter and last use advance.
func TestPasskeySignIn(t *testing.T) {
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	p, auth := addPasskey(t, store, owner.Actor(), "Laptop")
	if ok, err := store.UserHasPasskey(context.Background(), owner.ID); !ok || err != nil {
		t.Fatalf("UserHasPasskey = %v, %v", ok, err)
	}
	clock.Advance(time.Minute)
	sess, err := passkeySignIn(store, t, auth)
	if err != nil {
		t.Fatal(err)
	}
	if sess.UserID != owner.ID || sess.AuthMethod != models.MethodPasskey {
		t.Fatalf("session %+v", sess)
	}
	evs := modelstest.PersonalEvents(t, store, owner.ID, 2) // newest first
	if evs[1].ResourceName != "passkey" || evs[1].Action != "created" ||
		evs[0].Action != "signed_in" || !strings.Contains(string(evs[0].AdditionalDetails), `"method":"passkey"`) {
		t.Fatalf("events %s/%s %s", evs[1].Action, evs[0].Action, evs[0].AdditionalDetails)
	}
	var stored models.Passkey
	if err := store.DB().Where("id = ?", p.ID).Take(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if stored.SignCount != 1 || stored.LastUsedAt == nil || !stored.LastUsedAt.Equal(clock.Now()) {
		t.Fatalf("after use: count %d, last used %v", stored.SignCount, stored.LastUsedAt)
	}
}

// A credential whose signature counter goes back, or stays, is refused as
// a possible clone and recorded; the genuine authenticator, ahead of the
// stored counter, still signs in.
func TestPasskeyCounterGoingBackIsRefused(t *testing.T) {
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	_, auth := addPasskey(t, store, owner.Actor(), "Laptop")
	auth.Counter = 5
	if _, err := passkeySignIn(store, t, auth); err != nil { // stored counter now 6
		t.Fatal(err)
	}
	clone := *auth
	for _, counter := range []uint32{2, 5} { // Assert increments: 3 (back), 6 (same)
		clone.Counter = counter
		if _, err := passkeySignIn(store, t, &clone); !models.IsPasskeyCloned(err) || models.ErrorCode(err) != models.CodeForbidden {
			t.Fatalf("counter %d: err %v, want refused as a clone", counter+1, err)
		}
	}
	var n int64
	store.DB().Model(&models.AuditEvent{}).Where("resource_name = ? AND action = ?", "passkey", "clone_suspected").Count(&n)
	if n != 2 {
		t.Fatalf("%d clone_suspected events, want 2", n)
	}
	if _, err := passkeySignIn(store, t, auth); err != nil {
		t.Fatalf("the genuine authenticator (counter 7): %v", err)
	}
}

// An answered challenge cannot be answered again, an expired one not at
// all; an unknown credential and a deactivated user's are refused.
func TestPasskeySignInRefusals(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	_, auth := addPasskey(t, store, owner.Actor(), "Laptop")

	options, token, _ := store.BeginPasskeySignIn(ctx, testRP)
	answer := auth.Assert(t, options)
	if _, _, err := store.PasskeySignIn(ctx, testRP, models.PasskeySignInInput{Token: token, Credential: answer}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.PasskeySignIn(ctx, testRP, models.PasskeySignInInput{Token: token, Credential: answer}); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("replayed answer: %v", err)
	}

	options, token, _ = store.BeginPasskeySignIn(ctx, testRP)
	clock.Advance(models.PasskeyCeremonyTTL + time.Second)
	if _, _, err := store.PasskeySignIn(ctx, testRP, models.PasskeySignInInput{Token: token, Credential: auth.Assert(t, options)}); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("expired challenge: %v", err)
	}

	stranger := modelstest.NewAuthenticator(t, testRP.Origin)
	stranger.UserHandle = []byte(owner.ID)
	if _, err := passkeySignIn(store, t, stranger); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("unknown credential: %v", err)
	}

	if err := store.DB().Model(&models.User{}).Where("id = ?", owner.ID).Update("status", models.UserDeactivated).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := passkeySignIn(store, t, auth); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("deactivated user: %v", err)
	}
}

// A passkey is its user's: another user cannot delete it (not found),
// nor use it to pass a check of theirs; its owner can, and it is gone.
func TestPasskeyOwnership(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	bob, _ := modelstest.Owner(t, store, "bob@example.com")
	p, auth := addPasskey(t, store, ada.Actor(), "Laptop")
	clock.Advance(time.Second)
	addPasskey(t, store, bob.Actor(), "Phone")

	if _, err := store.DeletePasskey(ctx, bob.Actor(), p.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("bob deletes ada's passkey: %v", err)
	}
	options, token, err := store.BeginPasskeyCheck(ctx, testRP, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.FinishPasskeyCheck(ctx, testRP, bob.ID, token, auth.Assert(t, options)); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("ada's passkey passes bob's check: %v", err)
	}
	options, token, _ = store.BeginPasskeyCheck(ctx, testRP, ada.ID)
	if err := store.FinishPasskeyCheck(ctx, testRP, ada.ID, token, auth.Assert(t, options)); err != nil {
		t.Fatalf("ada's own check: %v", err)
	}
	// A check begun for ada cannot be finished as bob.
	options, token, _ = store.BeginPasskeyCheck(ctx, testRP, ada.ID)
	if err := store.FinishPasskeyCheck(ctx, testRP, bob.ID, token, auth.Assert(t, options)); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("ada's ceremony finished for bob: %v", err)
	}

	if _, err := store.DeletePasskey(ctx, ada.Actor(), p.ID); err != nil {
		t.Fatal(err)
	}
	keys, _ := store.Passkeys(ctx, ada.Actor())
	if len(keys) != 0 {
		t.Fatalf("ada still has %d passkeys", len(keys))
	}
	ev := modelstest.PersonalEvents(t, store, ada.ID, 1)[0]
	if ev.ResourceName != "passkey" || ev.Action != "deleted" {
		t.Fatalf("last event %s/%s", ev.ResourceName, ev.Action)
	}
	if ok, _ := store.UserHasPasskey(ctx, ada.ID); ok {
		t.Fatal("UserHasPasskey after removing the only one")
	}
}

// A passkey whose authenticator did not verify the user (no PIN or
// biometrics) is not one factor short of two: it is refused.
func TestPasskeyWithoutUserVerificationIsRefused(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	options, token, _ := store.BeginPasskeyRegistration(ctx, owner.Actor(), testRP)
	auth := modelstest.NewAuthenticator(t, testRP.Origin)
	auth.NoUserVerification = true
	_, err := store.AddPasskey(ctx, owner.Actor(), testRP, models.AddPasskeyInput{Name: "Key", Token: token, Credential: auth.Register(t, options)})
	if models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("err %v", err)
	}
}
