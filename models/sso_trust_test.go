package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The review's exploit: another company's provider mints a verified
// staff@operator.example and signs in with it. Nobody is signed in (nor
// half signed in), no identity is linked, and the refusal says to
// connect the provider from the account page; a plain owner outside any
// linked domain is refused alike.
func TestSSOTakeoverOfExistingUserRefused(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	staff, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "staff@operator.example",
		Password: password, Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, store, clock, staff.Actor())
	modelstest.Owner(t, store, "ada@example.com")
	for _, email := range []string{"staff@operator.example", "ada@example.com"} {
		sess, token, err := store.SignInSSO(ctx, models.SSOSignInInput{Provider: "b", ProviderName: "Company B",
			Subject: "evil-" + email, Email: email, EmailVerified: true})
		if _, half := models.AsSecondStep(err); half || sess != nil || token != "" || models.ErrorCode(err) != models.CodeForbidden {
			t.Fatalf("%s: session %v, err %v: want refused", email, sess, err)
		}
		if e, _ := models.AsError(err); !strings.Contains(e.Suggestion, "Sign in with your password, then connect Company B from your account page") {
			t.Fatalf("%s: suggestion %q", email, e.Suggestion)
		}
	}
	var ids int64
	store.DB().Model(&models.SSOIdentity{}).Count(&ids)
	if ids != 0 {
		t.Fatalf("%d identities linked", ids)
	}
}

// Support staff are never linked by email, even in a domain linked to the
// provider.
func TestSSONeverLinksSupportStaffByEmail(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	linkCorp(t, f, "")
	if _, err := f.store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "sam@corp.example",
		Password: password, Role: models.RoleSupport}); err != nil {
		t.Fatal(err)
	}
	_, _, err := ssoSignIn(t, f.store, "sam-sub", "sam@corp.example")
	wantCode(t, err, models.CodeForbidden)
}

// Through a provider their domain is not linked to, a user with TOTP is
// held for the code like after a password, finishing as "sso:corp+totp";
// through the provider their domain is linked to, the provider's sign-in
// is the whole sign-in.
func TestSSOSignInOutsideLinkedDomainIsOneFactor(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	ada, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, ada.Actor())
	if err := connectSSO(t, store, ada.Actor(), "corp", "ada-sub", ada.Email); err != nil {
		t.Fatal(err)
	}
	_, token, err := store.SignInSSO(ctx, models.SSOSignInInput{Provider: "corp", Subject: "ada-sub",
		Email: ada.Email, EmailVerified: true, Next: "/instances"})
	step, ok := models.AsSecondStep(err)
	if !ok || step.Reason != models.PendingSecondFactor || token != "" {
		t.Fatalf("SSO sign-in with TOTP: token %q, err %v: want held for the code", token, err)
	}
	done, err := store.CompletePendingSignIn(ctx, step.Token, totpAt(t, secret, clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if done.Session.AuthMethod != "sso:corp+totp" || done.Next != "/instances" {
		t.Fatalf("method %q next %q", done.Session.AuthMethod, done.Next)
	}

	f := newFixture(t)
	owner := linkCorp(t, f, "")
	u, err := f.store.UserByEmail(ctx, owner.Email)
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, f.store, f.clock, u.Actor())
	sess, _, err := ssoSignIn(t, f.store, "alice-sub", owner.Email)
	if err != nil || sess.AuthMethod != "sso:corp" {
		t.Fatalf("linked domain: %+v %v", sess, err)
	}
}

// Connecting needs a recent authentication, works only for the session
// that began it, and refuses a subject another user owns; disconnecting
// the last way a user without a password signs in is refused.
func TestSSOConnectGuards(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	ada := signInAs(t, s, "alice@example.com", "Firefox", models.Device{})
	f.clock.Advance(time.Second) // the connect's event comes after the sign-in's
	if err := connectSSO(t, s, ada, "corp", "ada-sub", "ada@corp.example"); err != nil {
		t.Fatal(err)
	}
	ids, err := s.SSOIdentities(ctx, ada)
	if err != nil || len(ids) != 1 || ids[0].Subject != "ada-sub" || ids[0].Email != "ada@corp.example" {
		t.Fatalf("identities %+v %v", ids, err)
	}
	ev := modelstest.PersonalEvents(t, s, ada.UserID, 1)
	if ev[0].Action != "updated" || !strings.Contains(string(ev[0].AdditionalDetails), `"sso_identity":"connected"`) {
		t.Fatalf("event %s %s", ev[0].Action, ev[0].AdditionalDetails)
	}
	// bob may not take ada's subject.
	bob := signInAs(t, s, "bob@example.com", "Firefox", models.Device{})
	wantCode(t, connectSSO(t, s, bob, "corp", "ada-sub", "ada@corp.example"), models.CodeConflict)

	// A connect begun by ada's session is not finished by bob's, nor by
	// another session of ada's.
	start, err := s.BeginSSOConnect(ctx, ada, "corp", "")
	if err != nil {
		t.Fatal(err)
	}
	login, _ := s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	c, err := s.TakeSSOConnect(ctx, login)
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	in := models.SSOIdentityInput{Provider: "corp", Subject: "other-sub", Email: "x@corp.example", EmailVerified: true}
	wantCode(t, s.ConnectSSOIdentity(ctx, bob, c, in), models.CodeForbidden)
	ada2 := signInAs(t, s, "alice@example.com", "Chrome", models.Device{})
	wantCode(t, s.ConnectSSOIdentity(ctx, ada2, c, in), models.CodeForbidden)
	// A plain sign-in's login has no connect purpose.
	plain, _ := s.BeginSSOLogin(ctx, "corp", "")
	plainLogin, _ := s.TakeSSOLogin(ctx, plain.State, plain.BrowserToken)
	if c, err := s.TakeSSOConnect(ctx, plainLogin); c != nil || err != nil {
		t.Fatalf("plain login as connect: %+v %v", c, err)
	}

	wantCode(t, s.DisconnectSSOIdentity(ctx, bob, "corp", "ada-sub"), models.CodeNotFound)

	// Past the re-authentication window, neither connect nor disconnect.
	f.clock.Advance(models.ReauthWindow + time.Second)
	if _, err := s.BeginSSOConnect(ctx, ada, "corp", ""); err != models.ErrReauthRequired {
		t.Fatalf("connect after the window: %v", err)
	}
	if err := s.DisconnectSSOIdentity(ctx, ada, "corp", "ada-sub"); err != models.ErrReauthRequired {
		t.Fatalf("disconnect after the window: %v", err)
	}
	if err := s.ConfirmIdentity(ctx, ada, models.IdentityProof{Password: password}); err != nil {
		t.Fatal(err)
	}
	if err := s.DisconnectSSOIdentity(ctx, ada, "corp", "ada-sub"); err != nil {
		t.Fatal(err)
	}

	// A just-in-time user (no password) keeps their only identity.
	linkCorp(t, f, "")
	if _, _, err := ssoSignIn(t, s, "new-sub", "new@corp.example"); err != nil {
		t.Fatal(err)
	}
	newcomer, err := s.UserByEmail(ctx, "new@corp.example")
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DisconnectSSOIdentity(ctx, newcomer.Actor(), "corp", "new-sub"), models.CodeConflict)
}

// A passkey does not sign in a user whose domain signs in through single
// sign-on: cutting them off at the provider must cut them off here.
func TestPasskeyRefusedForSSODomain(t *testing.T) {
	f := newFixture(t)
	owner := linkCorp(t, f, "")
	_, auth := addPasskey(t, f.store, owner, "Laptop")
	if _, err := passkeySignIn(f.store, t, auth); !models.IsSSORequired(err) {
		t.Fatalf("passkey of a linked domain: %v, want SSO required", err)
	}
	if err := f.store.UnlinkSSODomain(context.Background(), owner, "corp.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := passkeySignIn(f.store, t, auth); err != nil {
		t.Fatalf("after unlinking: %v", err)
	}
}

// The review's exploit: inside a linked domain, alice (TOTP on) has an
// identity at the provider whose address is a personal mailbox. Signing
// in with it, or with her own identity once the provider says another
// address, is one factor: held for her code. Only a token with her
// domain's verified address is the whole sign-in. Connecting another
// such identity now is refused.
func TestSSOIdentityOutsideTheLinkedDomainIsOneFactor(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	alice := f.owner(t, "alice@corp.example")
	for sub, email := range map[string]string{"alice-sub": "alice@corp.example", "gmail-sub": "someone@gmail.com"} {
		if err := connectSSO(t, f.store, alice, "corp", sub, email); err != nil { // corp.example is not linked yet
			t.Fatal(err)
		}
	}
	if _, err := f.store.LinkSSODomain(ctx, alice, models.SSODomainInput{Domain: "corp.example", Provider: "corp"}); err != nil {
		t.Fatal(err)
	}
	enrol(t, f.store, f.clock, alice)

	err := connectSSO(t, f.store, alice, "corp", "other-sub", "other@gmail.com")
	if e, _ := models.AsError(err); models.ErrorCode(err) != models.CodeForbidden || !strings.Contains(e.Message, "corp.example") {
		t.Fatalf("connecting a gmail identity inside a linked domain: %v", err)
	}
	for _, tc := range []struct{ sub, email string }{{"gmail-sub", "someone@gmail.com"}, {"alice-sub", "someone@gmail.com"}} {
		sess, token, err := ssoSignIn(t, f.store, tc.sub, tc.email)
		if step, ok := models.AsSecondStep(err); !ok || step.Reason != models.PendingSecondFactor || sess != nil || token != "" {
			t.Fatalf("%s as %s: session %v, err %v: want held for the code", tc.sub, tc.email, sess, err)
		}
	}
	if _, _, err := f.store.SignInSSO(ctx, models.SSOSignInInput{Provider: "corp", Subject: "alice-sub",
		Email: "alice@corp.example"}); !isSecondStep(err) {
		t.Fatalf("an unverified address: %v, want held for the code", err)
	}
	if _, token, err := ssoSignIn(t, f.store, "alice-sub", "alice@corp.example"); err != nil || token == "" {
		t.Fatalf("alice's own identity and address: %v", err)
	}
}

func isSecondStep(err error) bool { _, ok := models.AsSecondStep(err); return ok }
