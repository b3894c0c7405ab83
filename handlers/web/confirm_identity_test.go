package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// stale moves the clock past the re-authentication window.
func (e *env) stale() { e.clock.Advance(models.ReauthWindow + time.Second) }

// confirmAt is where a stale session is sent from a form of page.
func confirmAt(page string) string {
	return "/confirm-identity?next=" + url.QueryEscape(page) + "&form=1"
}

// lastReauth is the method of u's session/reauthenticated event among
// their last two personal events (a recovery code's use is the other),
// "" when there is none.
func lastReauth(t *testing.T, e *env, u *models.User) string {
	t.Helper()
	for _, ev := range modelstest.PersonalEvents(t, e.store, u.ID, 2) {
		if ev.ResourceName == "session" && ev.Action == "reauthenticated" {
			var d struct{ Method string }
			if err := json.Unmarshal([]byte(ev.AdditionalDetails), &d); err != nil {
				t.Fatal(err)
			}
			return d.Method
		}
	}
	return ""
}

// A TOTP code or a recovery code confirms, once each, and goes on to
// next; a wrong or replayed code is refused and leaves the window shut.
func TestConfirmIdentityWithACode(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	secret, recovery := e.withTOTP(ada)
	e.stale()
	b.post("/account/two-factor/recovery-codes", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).
		redirectsTo(confirmAt("/account#two-factor"))
	b.get("/confirm-identity?next=/api-keys").expect(http.StatusOK).
		contains(`action="/confirm-identity/code"`, `name="code"`, `name="password"`).lacks("Confirm with a passkey", "Sign in again with")

	b.post("/confirm-identity/code", url.Values{"next": {"/api-keys"}, "code": {"000000"}}).
		expect(http.StatusForbidden).contains("The code is incorrect")
	b.post("/api-keys", url.Values{"name": {"CI"}}).redirectsTo(confirmAt("/api-keys"))

	code := codeAt(t, secret, e.clock.Now())
	e.clock.Advance(time.Second)
	b.post("/confirm-identity/code", url.Values{"next": {"/api-keys"}, "code": {code}}).redirectsTo("/api-keys")
	if m := lastReauth(t, e, ada); m != models.FactorTOTP {
		t.Fatalf("reauthenticated with %q, want totp", m)
	}
	b.post("/api-keys", url.Values{"name": {"CI"}}).expect(http.StatusCreated)

	e.stale()
	b.post("/confirm-identity/code", url.Values{"next": {"/api-keys"}, "code": {code}}).expect(http.StatusForbidden)
	b.post("/confirm-identity/code", url.Values{"next": {"/account"}, "code": {recovery[0]}}).redirectsTo("/account")
	if m := lastReauth(t, e, ada); m != models.FactorRecovery {
		t.Fatalf("reauthenticated with %q, want recovery", m)
	}
	e.stale()
	b.post("/confirm-identity/code", url.Values{"next": {"/account"}, "code": {recovery[0]}}).expect(http.StatusForbidden)
}

// A user without a second factor is not offered the code form, and a
// code posted anyway is refused.
func TestConfirmIdentityCodeNeedsAFactor(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.stale()
	b.get("/confirm-identity?next=/").expect(http.StatusOK).contains(`name="password"`).lacks(`name="code"`)
	b.post("/confirm-identity/code", url.Values{"next": {"/"}, "code": {"123456"}}).expect(http.StatusForbidden)
}

// A passkey confirms only through a ceremony for this user's own
// passkeys: another user's passkey is refused.
func TestConfirmIdentityWithAPasskey(t *testing.T) {
	e := newEnv(t, withPasskeys())
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	b := e.signedIn("ada@example.com")
	auth := b.addPasskey("Laptop")
	bobAuth := e.signedIn("bob@example.com").addPasskey("Bob's key")
	e.stale()
	b.get("/confirm-identity?next=/account").expect(http.StatusOK).
		contains("Confirm with a passkey", `data-passkey-options="/confirm-identity/passkey/options"`, `name="password"`)

	options := b.post("/confirm-identity/passkey/options", nil).expect(http.StatusOK)
	b.post("/confirm-identity/passkey", url.Values{"next": {"/account"}, "credential": {string(bobAuth.Assert(t, []byte(options.Body)))}}).
		expect(http.StatusForbidden)
	b.post("/account/passkeys/options", nil).redirectsTo(confirmAt("/account#passkeys"))

	options = b.post("/confirm-identity/passkey/options", nil).expect(http.StatusOK)
	if !strings.Contains(options.Body, `"allowCredentials"`) {
		t.Fatalf("options do not name the user's passkeys: %s", options.Body)
	}
	e.clock.Advance(time.Second)
	b.post("/confirm-identity/passkey", url.Values{"next": {"/account"}, "credential": {string(auth.Assert(t, []byte(options.Body)))}}).
		redirectsTo("/account")
	if m := lastReauth(t, e, ada); m != models.MethodPasskey {
		t.Fatalf("reauthenticated with %q, want passkey", m)
	}
	b.post("/account/passkeys/options", nil).expect(http.StatusOK)
}

// reauthLink is the confirm page's "Sign in again with Corp" link of b.
func reauthLink(b *browser, next string) string {
	return "/confirm-identity/sso/corp?" + url.Values{"csrf_token": {b.csrf}, "next": {next}}.Encode()
}

// ssoReauth confirms b's identity through the provider's current user and
// returns the callback's answer; the authorization request is checked to
// ask the provider for a fresh sign-in.
func ssoReauth(t *testing.T, b *browser, op *testOP, next string) *page {
	t.Helper()
	start := b.get(reauthLink(b, next)).expect(http.StatusSeeOther)
	back := providerAnswer(t, start)
	op.mu.Lock()
	asked := op.asked
	op.mu.Unlock()
	if asked.Get("prompt") != "login" || asked.Get("max_age") != "0" {
		t.Fatalf("authorization request %v: want prompt=login and max_age=0", asked)
	}
	return b.get(back)
}

// providerAnswer follows start's redirect to the provider and returns the
// callback path and query it sends the browser back to.
func providerAnswer(t *testing.T, start *page) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(start.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	back := res.Header.Get("Location")
	if !strings.HasPrefix(back, ssoBase+"/sso/corp/callback?") {
		t.Fatalf("provider answered %d to %q", res.StatusCode, back)
	}
	return strings.TrimPrefix(back, ssoBase)
}

// Single sign-on confirms a user when the provider signs in again the
// identity linked to them: another user's identity, an unlinked one, or
// a provider's old sign-in (auth_time) is refused.
func TestConfirmIdentityWithSSO(t *testing.T) {
	e, op := newSSOEnv(t)
	alice := e.owner("alice@corp.example")
	e.connectIdentity(alice, "alice-sub")
	e.connectIdentity(e.owner("mallory@corp.example"), "mallory-sub")
	b := e.browser()
	op.signIn("alice-sub", "alice@corp.example", true)
	ssoSignIn(t, b, "/").redirectsTo("/")
	op.signIn("mallory-sub", "mallory@corp.example", true)
	ssoSignIn(t, e.browser(), "/").redirectsTo("/")

	e.stale()
	b.get("/confirm-identity?next=/account").expect(http.StatusOK).
		contains(`href="/confirm-identity/sso/corp?csrf_token=`+b.csrf+`&amp;next=%2Faccount"`, "Sign in again with Corp",
			`name="password"`).lacks(`action="/confirm-identity/sso/corp"`)
	// A link, since CSP's form-action stops a form's redirect to the
	// provider: it needs the session's CSRF token and this site.
	b.get("/confirm-identity/sso/corp?next=/account").expect(http.StatusForbidden)
	req := httptest.NewRequest(http.MethodGet, reauthLink(b, "/account"), nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	b.send(req).expect(http.StatusForbidden)
	ssoReauth(t, b, op, "/api-keys").expect(http.StatusForbidden).contains("not the one linked")
	op.signIn("stranger-sub", "stranger@corp.example", true)
	ssoReauth(t, b, op, "/api-keys").expect(http.StatusForbidden).contains("not the one linked")
	op.signIn("alice-sub", "alice@corp.example", true)
	op.tamper = func(c map[string]any) { c["auth_time"] = e.clock.Now().Add(-time.Hour).Unix() }
	ssoReauth(t, b, op, "/api-keys").expect(http.StatusForbidden).contains("did not ask you to sign in again")
	// max_age was sent, so OpenID Connect requires auth_time.
	op.tamper = func(c map[string]any) { delete(c, "auth_time") }
	ssoReauth(t, b, op, "/api-keys").expect(http.StatusForbidden).contains("did not ask you to sign in again")
	b.post("/api-keys", url.Values{"name": {"CI"}}).redirectsTo(confirmAt("/api-keys"))

	op.tamper = func(c map[string]any) { c["auth_time"] = e.clock.Now().Unix() }
	e.clock.Advance(time.Second)
	ssoReauth(t, b, op, "/api-keys").redirectsTo("/api-keys")
	if m := lastReauth(t, e, alice); m != "sso:corp" {
		t.Fatalf("reauthenticated with %q, want sso:corp", m)
	}
	b.post("/api-keys", url.Values{"name": {"CI"}}).expect(http.StatusCreated)

	// A sign-in's attempt is no confirmation, nor the other way round:
	// the confirmation's callback in a browser signed out meanwhile.
	e.stale()
	start := b.get(reauthLink(b, "/")).expect(http.StatusSeeOther)
	b.post("/sign-out", nil)
	b.get(providerAnswer(t, start)).expect(http.StatusForbidden)
	b.get("/").redirectsTo("/sign-in?next=%2F")
}

// A user who joined just in time through single sign-on has no password:
// the confirm page offers single sign-on (and their passkey), never a
// password; the account page has no password form, and changing email
// asks for a recent confirmation instead of a password.
func TestJustInTimeUserConfirmsWithoutAPassword(t *testing.T) {
	op := &testOP{t: t}
	e := newEnv(t, withSSO(&op, false), withPasskeys())
	e.connectIdentity(e.owner("alice@corp.example"), "alice-sub")
	owner := e.browser()
	op.signIn("alice-sub", "alice@corp.example", true)
	ssoSignIn(t, owner, "/").redirectsTo("/")
	owner.get("/members").expect(http.StatusOK)
	owner.post("/members/sso", url.Values{"domain": {"corp.example"}, "provider": {"corp"}, "default_role": {"member"}}).
		redirectsTo("/members")
	e.clock.Advance(time.Second)
	b := e.browser()
	op.signIn("bob-sub", "bob@corp.example", true)
	ssoSignIn(t, b, "/").redirectsTo("/")
	b.get("/account").expect(http.StatusOK)
	b.addPasskey("Bob's key")
	b.get("/account").expect(http.StatusOK).lacks("Change password", `name="current_password"`).contains(`action="/account/email"`)

	e.stale()
	b.get("/confirm-identity?next=/account").expect(http.StatusOK).
		contains("Sign in again with Corp", "Confirm with a passkey").lacks(`name="password"`)
	b.post("/confirm-identity", url.Values{"next": {"/account"}, "password": {""}}).expect(http.StatusForbidden)
	b.post("/account/email", url.Values{"new_email": {"bob@elsewhere.example"}}).
		redirectsTo(confirmAt("/account#email-change"))

	ssoReauth(t, b, op, "/account").redirectsTo("/account")
	// corp.example signs in with single sign-on: its owners manage its
	// addresses, so bob cannot move out of it himself.
	b.post("/account/email", url.Values{"new_email": {"bob@elsewhere.example"}}).
		expect(http.StatusUnprocessableEntity).contains("ask an owner or your administrator").lacks("the operator")
	b.post("/account/email", url.Values{"new_email": {"robert@corp.example"}}).redirectsTo("/account")
}

// After the window every sensitive form sends the browser to confirm
// who it is, and comes back to the form's page.
func TestSensitiveFormsAskAgainAfterTheWindow(t *testing.T) {
	e := newEnv(t, withPasskeys())
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.stale()
	for _, tc := range []struct{ path, page string }{
		{"/account/passkeys/options", "/account#passkeys"},
		{"/account/passkeys", "/account#passkeys"},
		{"/account/passkeys/pk1/delete", "/account#passkeys"},
		{"/account/two-factor/start", "/account#two-factor"},
		{"/account/two-factor/confirm", "/account#two-factor"},
		{"/account/two-factor/disable", "/account#two-factor"},
		{"/account/two-factor/recovery-codes", "/account#two-factor"},
		{"/members/sso", "/members"},
		{"/members/sso/corp.example/unlink", "/members"},
	} {
		b.post(tc.path, url.Values{"code": {"123456"}, "domain": {"corp.example"}}).redirectsTo(confirmAt(tc.page))
	}
	b.post("/confirm-identity", url.Values{"next": {"/account#two-factor"}, "password": {password}}).
		redirectsTo("/account#two-factor")
	b.post("/account/two-factor/start", nil).redirectsTo("/account#two-factor")
}

// Codes typed on the confirm page share the session's budget with its
// password: a session guessing codes is stopped.
func TestConfirmIdentityCodesAreThrottled(t *testing.T) {
	e := newEnv(t, deviceLimits())
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.withTOTP(ada)
	e.stale()
	b.get("/confirm-identity?next=/").expect(http.StatusOK)
	for i := range 10 {
		res := b.post("/confirm-identity/code", url.Values{"next": {"/"}, "code": {"00000" + string(rune('0'+i))}})
		if res.Status == http.StatusTooManyRequests {
			return
		}
		res.expect(http.StatusForbidden)
	}
	t.Fatal("10 wrong codes from one session were all checked")
}
