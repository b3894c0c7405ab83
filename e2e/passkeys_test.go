package e2e

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// passkeyServer starts a server of its own whose --base-url is
// http://localhost:<port>: WebAuthn refuses the suite's 127.0.0.1 as a
// relying party id. It returns that URL and an owner made with the CLI.
func (s *suite) passkeyServer(t *testing.T) (string, owner) {
	t.Helper()
	base, o, _ := s.passkeyServerDB(t)
	return base, o
}

// passkeyServerDB is passkeyServer that also returns the server's
// database, for a test that must change what a clock would.
func (s *suite) passkeyServerDB(t *testing.T) (string, owner, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	base := fmt.Sprintf("http://localhost:%d", port)
	db, drop, err := testserver.FreshDatabase(t.TempDir(), testserver.PostgresURL(), modelstest.CreatePostgresDB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() }) // after the server has stopped
	srv, err := testserver.Launch(testserver.Options{Database: db, Binary: s.bin, Args: []string{
		"--addr", fmt.Sprintf("127.0.0.1:%d", port), "--base-url", base, "--rate-limit", "off"}})
	if srv != nil {
		t.Cleanup(func() { _ = srv.Terminate(30 * time.Second) })
	}
	if err != nil {
		t.Fatalf("start a server on %s: %v", base, err)
	}
	o := owner{email: "passkeys@example.com", password: password}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	if _, stderr, code, err := testserver.RunContext(ctx, s.bin, nil, "users", "create",
		"--email", o.email, "--password", o.password, "--database", db); err != nil || code != 0 {
		t.Fatalf("users create: exit %d %v\n%s", code, err, stderr)
	}
	return base, o, db
}

// virtualAuthenticator adds Chromium's virtual platform authenticator
// (resident keys, user verification that succeeds) to the tab.
func (b *tab) virtualAuthenticator() webauthn.AuthenticatorID {
	b.T.Helper()
	res, err := chromedp.Call(b.Ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		b.Fail("add a virtual authenticator: %v", err)
	}
	return res.AuthenticatorID
}

// addCredential is WebAuthn.addCredential with only the fields the clone
// needs: cdproto's Credential always sends generateCmtgKeyOnNextOperation,
// which the virtual authenticator of Chromium refuses ("CMTG is not
// supported").
var addCredential = cdp.Command[addCredentialParams, cdp.Empty]{Method: webauthn.CommandAddCredential}

type addCredentialParams struct {
	AuthenticatorID webauthn.AuthenticatorID `json:"authenticatorId"`
	Credential      addedCredential          `json:"credential"`
}

type addedCredential struct {
	CredentialID         []byte  `json:"credentialId"`
	IsResidentCredential bool    `json:"isResidentCredential"`
	RpID                 string  `json:"rpId"`
	PrivateKey           []byte  `json:"privateKey"`
	UserHandle           []byte  `json:"userHandle"`
	SignCount            float64 `json:"signCount"`
}

func (b *tab) signedInAs(o owner) {
	b.T.Helper()
	b.WaitText("#site-header", regexp.QuoteMeta(o.email))
	b.Ready()
}

func (b *tab) signOut() {
	b.T.Helper()
	b.Press("#site-header", "^Sign out$")
	b.WaitText("main", "You have signed out")
	b.Ready()
}

// A passkey added on the account page signs its user in alone, is the
// second step after the password, and is removed there; a copy of it
// whose signature counter is behind the real one's is refused.
func TestPasskeys(t *testing.T) {
	s := need(t)
	base, o := s.passkeyServer(t)
	b := &tab{Tab: browser.NewTab(t, s.browser, base, s.shots), s: s}
	if _, err := chromedp.Call(b.Ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		b.Fail("enable WebAuthn in the tab: %v", err)
	}
	real := b.virtualAuthenticator()

	b.signIn(o)
	b.Open("/account")
	b.WaitText("#passkeys", "No passkeys yet")
	b.Fill("#passkeys", "^Name", "Virtual key")
	b.Press("#passkeys", "^Add a passkey$")
	b.WaitText("#flash", "Passkey “Virtual key” added")
	b.WaitText("#passkeys", "Virtual key")
	b.Shot("passkey added")

	b.signOut()
	b.Press("main", "^Sign in with a passkey$")
	b.signedInAs(o)
	b.Shot("signed in with the passkey")

	creds, err := chromedp.Call(b.Ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: real})
	if err != nil || len(creds.Credentials) != 1 {
		b.Fail("the authenticator's credentials: %v %v", creds, err)
	}
	cred := *creds.Credentials[0]
	if cred.SignCount < 1 {
		b.Fail("the virtual authenticator keeps no counter (sign count %v)", cred.SignCount)
	}

	// A clone: the same key on another authenticator, its counter behind.
	b.signOut()
	if _, err := chromedp.Call(b.Ctx, webauthn.RemoveVirtualAuthenticator,
		webauthn.RemoveVirtualAuthenticatorParams{AuthenticatorID: real}); err != nil {
		b.Fail("remove the authenticator: %v", err)
	}
	clone := b.virtualAuthenticator()
	copied := addedCredential{CredentialID: cred.CredentialID, IsResidentCredential: true, RpID: cred.RpID,
		PrivateKey: cred.PrivateKey, UserHandle: cred.UserHandle, SignCount: cred.SignCount - 1}
	if _, err := chromedp.Call(b.Ctx, addCredential, addCredentialParams{AuthenticatorID: clone, Credential: copied}); err != nil {
		b.Fail("add the cloned credential: %v", err)
	}
	b.Press("main", "^Sign in with a passkey$")
	b.WaitText("main", "signature counter went back")
	b.Shot("cloned passkey refused")

	// The key again, its counter ahead: after the password it is the
	// second step (a passkey is a second factor).
	if _, err := chromedp.Call(b.Ctx, webauthn.RemoveVirtualAuthenticator,
		webauthn.RemoveVirtualAuthenticatorParams{AuthenticatorID: clone}); err != nil {
		b.Fail("remove the clone: %v", err)
	}
	copied.SignCount = cred.SignCount + 10
	if _, err := chromedp.Call(b.Ctx, addCredential, addCredentialParams{AuthenticatorID: b.virtualAuthenticator(), Credential: copied}); err != nil {
		b.Fail("add the credential back: %v", err)
	}
	b.Open("/sign-in")
	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Sign in$")
	b.WaitText("main", "Confirm it is you with one of your passkeys")
	b.Press("main", "^Use a passkey$")
	b.signedInAs(o)
	b.Shot("signed in with password and passkey")
	b.Open("/account")
	b.Press("#passkeys", "^Remove Virtual key$")
	b.WaitText("#flash", "Passkey “Virtual key” removed")
	b.WaitText("#passkeys", "No passkeys yet")
	b.Shot("passkey removed")
}

// An account that requires a second factor lets a user without one meet
// it with a passkey made on the enrol step; that passkey is their second
// step from then on.
func TestPasskeyEnrolWhenRequired(t *testing.T) {
	s := need(t)
	base, o := s.passkeyServer(t)
	b := &tab{Tab: browser.NewTab(t, s.browser, base, s.shots), s: s}
	if _, err := chromedp.Call(b.Ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		b.Fail("enable WebAuthn in the tab: %v", err)
	}
	b.virtualAuthenticator()
	passwordStep := func() {
		b.Open("/sign-in")
		b.Fill("main", "^Email$", o.email)
		b.Fill("main", "^Password$", o.password)
		b.Press("main", "^Sign in$")
	}

	b.signIn(o)
	b.Open("/account")
	b.Press("#two-factor", "^Require it of every member$")
	b.WaitText("#two-factor", "requires two-factor authentication of every member")
	b.signOut()

	passwordStep()
	b.WaitText("main", "Or add a passkey")
	b.Fill("main", "^Passkey name", "Virtual key")
	b.Press("main", "^Add a passkey and sign in$")
	b.signedInAs(o)
	b.Shot("enrolled a passkey at sign-in")
	b.signOut()

	passwordStep()
	b.WaitText("main", "Confirm it is you with one of your passkeys")
	b.Press("main", "^Use a passkey$")
	b.signedInAs(o)
}
