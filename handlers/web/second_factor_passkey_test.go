package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// passkeyStep answers the second step with the authenticator's passkey,
// as passkeys.js does from the step's page.
func (b *browser) passkeyStep(auth *modelstest.Authenticator) *page {
	b.e.t.Helper()
	b.get("/sign-in/second-factor").expect(http.StatusOK).contains("Use a passkey")
	options := b.post("/sign-in/second-factor/passkey/options", nil).expect(http.StatusOK)
	return b.post("/sign-in/second-factor/passkey", url.Values{"credential": {string(auth.Assert(b.e.t, []byte(options.Body)))}})
}

// newSignInMails counts the new sign-in mails queued.
func (e *env) newSignInMails() int64 {
	e.t.Helper()
	var n int64
	if err := e.store.DB().Model(&models.MailMessage{}).Where("kind = ?", models.MailNewSignIn).Count(&n).Error; err != nil {
		e.t.Fatal(err)
	}
	return n
}

// lastSessionMethod is the AuthMethod of u's newest session.
func (e *env) lastSessionMethod(u *models.User) string {
	e.t.Helper()
	var s models.Session
	if err := e.store.DB().Where("user_id = ?", u.ID).Order("created_at DESC").Take(&s).Error; err != nil {
		e.t.Fatal(err)
	}
	return s.AuthMethod
}

// The password of a user with a passkey leads to the second step, which
// offers "Use a passkey" (and the code form only to a user with TOTP);
// the passkey finishes the sign-in as "password+passkey" where the
// browser asked to go.
func TestSecondStepWithAPasskey(t *testing.T) {
	e := newEnv(t, withPasskeys())
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	auth := b.addPasskey("Laptop")
	b.post("/sign-out", nil)
	e.clock.Advance(time.Minute)

	b.get("/sign-in?next=/api-keys")
	b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}, "next": {"/api-keys"}}).
		redirectsTo("/sign-in/second-factor")
	b.get("/sign-in/second-factor").expect(http.StatusOK).
		contains(`data-passkey-options="/sign-in/second-factor/passkey/options"`, "Use a passkey").lacks(`name="code"`)
	b.get("/api-keys").redirectsTo("/sign-in?next=%2Fapi-keys")
	b.passkeyStep(auth).redirectsTo("/api-keys")
	b.get("/api-keys").expect(http.StatusOK).contains("ada@example.com")
	if m := e.lastSessionMethod(ada); m != "password+passkey" {
		t.Fatalf("session method %q", m)
	}
	// Options and answers need a pending sign-in: a signed-in browser or
	// a stranger gets none.
	b.post("/sign-in/second-factor/passkey/options", nil).expect(http.StatusConflict)
	stranger := e.browser()
	stranger.get("/sign-in")
	stranger.post("/sign-in/second-factor/passkey/options", nil).expect(http.StatusNotFound)
	stranger.get("/sign-in/second-factor/passkey").redirectsTo("/sign-in/second-factor")

	// With TOTP as well, both are offered.
	e.withTOTP(ada)
	c := e.browser()
	c.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	c.get("/sign-in/second-factor").contains(`name="code"`, "Use a passkey")
	// A user with TOTP only is not offered a passkey.
	bob := e.owner("bob@example.com")
	e.withTOTP(bob)
	d := e.browser()
	d.signIn("bob@example.com", password).redirectsTo("/sign-in/second-factor")
	d.get("/sign-in/second-factor").contains(`name="code"`).lacks("Use a passkey")
}

// Threat: Bob knows Ada's password and answers her second step with his
// own passkey. It is refused on the step's page, no session starts, and
// the attempt counts against the step's throttle like a wrong code.
func TestSecondStepRefusesAnotherUsersPasskey(t *testing.T) {
	e := newEnv(t, withPasskeys(), withLimits(func(c *modelstest.Clock) web.Limits {
		return web.Limits{SignInPerAccountAddress: perMinute(c, 3)}
	}))
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	adaKey := e.signedIn("ada@example.com").addPasskey("Ada's")
	bobKey := e.signedIn("bob@example.com").addPasskey("Bob's")
	e.clock.Advance(time.Minute)

	thief := e.browser()
	thief.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	for i := 0; i < 3; i++ {
		res := thief.passkeyStep(bobKey).expect(http.StatusForbidden).contains("passkey was not accepted")
		if c := res.cookie(web.SessionCookie); c != nil && c.Value != "" {
			t.Fatal("a session for another user's passkey")
		}
	}
	thief.get("/").redirectsTo("/sign-in?next=%2F")
	// Past the budget even Ada's own passkey waits.
	options := thief.post("/sign-in/second-factor/passkey/options", nil).expect(http.StatusOK)
	thief.post("/sign-in/second-factor/passkey", url.Values{"credential": {string(adaKey.Assert(t, []byte(options.Body)))}}).
		expect(http.StatusTooManyRequests).contains("Too many attempts")
}

// An account requiring a second factor does not send a member with a
// passkey to enrol: the passkey is the second step. Their TOTP may be
// turned off while the passkey stays; the last passkey may not go.
func TestRequiredSecondFactorMetByAPasskey(t *testing.T) {
	e := newEnv(t, withPasskeys())
	owner := e.owner("ada@example.com")
	e.withTOTP(owner)
	if err := e.store.SetRequireSecondFactor(t.Context(), owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	member, _ := modelstest.Member(t, e.store, owner.Actor(), "bob@example.com", models.RoleMember)
	// Bob is led to enrol first (no factor), then adds a passkey.
	b := e.browser()
	b.signIn("bob@example.com", password).redirectsTo("/sign-in/enrol")
	options, token, err := e.store.BeginPasskeyRegistration(t.Context(), member, webRP)
	if err != nil {
		t.Fatal(err)
	}
	auth := modelstest.NewAuthenticator(t, webRP.Origin)
	p, err := e.store.AddPasskey(t.Context(), member, webRP, models.AddPasskeyInput{Name: "Phone", Token: token, Credential: auth.Register(t, options)})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	c := e.browser()
	c.signIn("bob@example.com", password).redirectsTo("/sign-in/second-factor")
	c.passkeyStep(auth).redirectsTo("/")
	c.get("/account").expect(http.StatusOK)
	c.post("/account/passkeys/"+p.ID+"/delete", nil).expect(http.StatusForbidden).
		contains(`id="passkeys"`, "This is your last passkey and a second factor is required of you")
	var n int64
	e.store.DB().Model(&models.Passkey{}).Where("id = ?", p.ID).Count(&n)
	if n != 1 {
		t.Fatal("the last required passkey was removed")
	}
}

// deviceCookieReaches reports whether the answer sets a device cookie for a
// request to path, and whether a request another site started (the
// identity provider's redirect back) would carry it.
func deviceCookieReaches(p *page, path string, crossSite bool) bool {
	for _, line := range p.Header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil || !strings.HasPrefix(c.Name, "cloudplane_") || !strings.HasSuffix(c.Name, "device") ||
			c.Value == "" || !strings.HasPrefix(path, c.Path) {
			continue
		}
		if !crossSite || c.SameSite == http.SameSiteLaxMode || c.SameSite == http.SameSiteNoneMode {
			return true
		}
	}
	return false
}

// The new sign-in mail for every way of signing in: a known browser
// (device cookie) is not mailed, an unknown one once; a two-step
// sign-in is mailed when it completes, not at its first step.
func TestNewBrowserMailForEveryWayOfSigningIn(t *testing.T) {
	t.Run("password and TOTP", func(t *testing.T) {
		e := newEnv(t)
		ada := e.owner("ada@example.com")
		e.signedIn("ada@example.com").post("/sign-out", nil) // the first sign-in ever is never mailed
		secret, _ := e.withTOTP(ada)
		// The password alone makes no browser known: one that stopped at
		// the second step is still a stranger when it signs in whole.
		known := e.browser()
		known.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
		e.clock.Advance(time.Minute)
		known.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
		if n := e.newSignInMails(); n != 0 {
			t.Fatalf("mailed at the first step: %d", n)
		}
		known.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("a new browser after its code: %d mails, want 1", n)
		}
		known.post("/sign-out", nil)
		e.clock.Advance(time.Minute)
		known.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
		known.get("/sign-in/second-factor").expect(http.StatusOK)
		known.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("a known browser: %d mails in all, want still 1", n)
		}
	})
	t.Run("password and passkey", func(t *testing.T) {
		e := newEnv(t, withPasskeys())
		e.owner("ada@example.com")
		auth := e.signedIn("ada@example.com").addPasskey("Laptop")
		e.clock.Advance(time.Minute)
		stranger := e.browser()
		stranger.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
		if n := e.newSignInMails(); n != 0 {
			t.Fatalf("mailed at the first step: %d", n)
		}
		stranger.passkeyStep(auth).redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("a new browser after its passkey: %d mails, want 1", n)
		}
	})
	t.Run("passkey", func(t *testing.T) {
		e := newEnv(t, withPasskeys())
		e.owner("ada@example.com")
		b := e.signedIn("ada@example.com")
		auth := b.addPasskey("Laptop")
		b.post("/sign-out", nil)
		e.clock.Advance(time.Minute)
		b.passkeySignIn(auth).redirectsTo("/")
		if n := e.newSignInMails(); n != 0 {
			t.Fatalf("a known browser: %d mails", n)
		}
		e.clock.Advance(time.Minute)
		stranger := e.browser()
		res := stranger.passkeySignIn(auth).redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("a new browser: %d mails, want 1", n)
		}
		if !deviceCookieReaches(res, "/sign-in/passkey", false) {
			t.Fatal("a passkey sign-in issued no device cookie")
		}
		stranger.get("/").expect(http.StatusOK)
		stranger.post("/sign-out", nil).redirectsTo("/sign-in?notice=signed-out")
		e.clock.Advance(time.Minute)
		stranger.passkeySignIn(auth).redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("the same browser again: %d mails, want 1", n)
		}
	})
	t.Run("single sign-on", func(t *testing.T) {
		e, op := newSSOEnv(t)
		e.connectIdentity(e.owner("alice@corp.example"), "alice-sub")
		op.signIn("alice-sub", "alice@corp.example", true)
		b := e.browser()
		res := ssoSignIn(t, b, "").redirectsTo("/")
		// The provider's redirect back is a request another site started:
		// the cookie must reach the callback's path then.
		if !deviceCookieReaches(res, "/sso/corp/callback", true) {
			t.Fatalf("the device cookie does not reach the callback: %q", res.Header.Values("Set-Cookie"))
		}
		if !deviceCookieReaches(res, "/sign-in", false) {
			t.Fatal("the device cookie does not reach the sign-in form")
		}
		b.get("/").expect(http.StatusOK)
		b.post("/sign-out", nil).redirectsTo("/sign-in?notice=signed-out")
		e.clock.Advance(time.Minute)
		ssoSignIn(t, b, "").redirectsTo("/")
		if n := e.newSignInMails(); n != 0 {
			t.Fatalf("a known browser: %d mails", n)
		}
		e.clock.Advance(time.Minute)
		ssoSignIn(t, e.browser(), "").redirectsTo("/")
		if n := e.newSignInMails(); n != 1 {
			t.Fatalf("a new browser: %d mails, want 1", n)
		}
	})
}

// A member an account requires to have a second factor may add a passkey
// on the enrol step instead of an authenticator app: the session starts
// with it, and it is their second step from then on.
func TestEnrolWithAPasskey(t *testing.T) {
	e := newEnv(t, withPasskeys())
	owner := e.owner("ada@example.com")
	e.withTOTP(owner)
	if err := e.store.SetRequireSecondFactor(t.Context(), owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	modelstest.Member(t, e.store, owner.Actor(), "bob@example.com", models.RoleMember)
	b := e.browser()
	b.get("/sign-in?next=/members")
	b.post("/sign-in", url.Values{"email": {"bob@example.com"}, "password": {password}, "next": {"/members"}}).
		redirectsTo("/sign-in/enrol")
	b.get("/sign-in/enrol").expect(http.StatusOK).contains("Or add a passkey", `data-passkey-options="/sign-in/enrol/passkey/options"`)
	b.get("/sign-in/enrol/passkey").redirectsTo("/sign-in/enrol")
	options := b.post("/sign-in/enrol/passkey/options", nil).expect(http.StatusOK)
	auth := modelstest.NewAuthenticator(t, webRP.Origin)
	cred := string(auth.Register(t, []byte(options.Body)))
	b.post("/sign-in/enrol/passkey", url.Values{"name": {""}, "credential": {cred}}).
		expect(http.StatusUnprocessableEntity).fieldError("name", "Passkey name is required.")
	b.post("/sign-in/enrol/passkey", url.Values{"name": {"Phone"}, "credential": {cred}}).redirectsTo("/members")
	b.get("/members").expect(http.StatusOK).contains("bob@example.com")
	b.get("/account").expect(http.StatusOK).contains("Phone")
	b.get("/").expect(http.StatusOK)
	b.post("/sign-out", nil)
	e.clock.Advance(time.Minute)
	b.signIn("bob@example.com", password).redirectsTo("/sign-in/second-factor")
	b.passkeyStep(auth).redirectsTo("/")
}
