package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/web"
	"cloudplane/models/modelstest"
)

// Every page but sign-in and setup needs a session; the sign-in page
// brings the visitor back afterwards.
func TestSignedOutVisitorsAreSentToSignIn(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	for _, path := range []string{"/", "/api-keys", "/account", "/api-keys/0123456789abcdef0123456789abcdef/revoke"} {
		b.get(path).redirectsTo("/sign-in?next=" + url.QueryEscape(path))
	}
	b.post("/api-keys", url.Values{"name": {"x"}, "csrf_token": {""}}).expect(http.StatusForbidden)
	b.htmx = true
	b.get("/api-keys").expect(http.StatusNoContent).redirectsTo("/sign-in?next=%2Fapi-keys")
}

func TestSignIn(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	e.clock.Advance(time.Second)
	b := e.browser()
	form := b.get("/sign-in?next=/api-keys").expect(http.StatusOK).
		contains("<h1>Sign in</h1>", `name="next" value="/api-keys"`, `autocomplete="current-password"`)
	if c := form.cookie("cloudplane_csrf"); c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("visitor CSRF cookie %+v", c)
	}

	res := b.post("/sign-in", url.Values{"email": {"Ada@Example.com"}, "password": {password}, "next": {"/api-keys"}})
	res.redirectsTo("/api-keys")
	c := res.cookie("cloudplane_session")
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" {
		t.Fatalf("session cookie %+v", c)
	}
	b.get("/api-keys").expect(http.StatusOK).contains("ada@example.com", "Sign out")
	b.get("/sign-in").redirectsTo("/")

	ev := modelstest.PersonalEvents(t, e.store, owner.ID, 1)[0]
	if ev.ResourceName != "session" || ev.Action != "signed_in" || *ev.ActorLRN != "lrn:cloud:user:"+owner.ID {
		t.Fatalf("sign-in event %+v", ev)
	}
}

// Behind a trusted proxy that says the browser used TLS, cookies are
// Secure; the same header from any other peer changes nothing.
func TestCookiesAreSecureOnlyViaATrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		proxies []string
		secure  bool
	}{
		{"no proxies configured", nil, false},
		{"peer is not the trusted proxy", []string{"192.0.2.1"}, false},
		{"peer is the trusted proxy", []string{"0.0.0.0"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withTrustedProxies(tc.proxies...))
			e.owner("ada@example.com")
			b := e.browser()
			b.header.Set("X-Forwarded-Proto", "https")
			if c := b.get("/sign-in").cookie("cloudplane_csrf"); c == nil || c.Secure != tc.secure {
				t.Fatalf("CSRF cookie %+v, want Secure %v", c, tc.secure)
			}
			res := b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}})
			for _, name := range []string{"cloudplane_session", "cloudplane_device"} {
				if c := res.cookie(name); c == nil || c.Secure != tc.secure {
					t.Fatalf("%s cookie %+v, want Secure %v", name, c, tc.secure)
				}
			}
			// The signed-out cookie is cleared with the same flag.
			b.get("/").expect(http.StatusOK)
			if c := b.post("/sign-out", nil).cookie("cloudplane_session"); c == nil || c.Secure != tc.secure {
				t.Fatalf("cleared session cookie %+v, want Secure %v", c, tc.secure)
			}
		})
	}
}

// A wrong password and an unknown email read the same, and the form
// keeps the email but never the password.
func TestSignInFailuresLookAlike(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.browser()
	wrong := b.signIn("ada@example.com", "not the password").expect(http.StatusUnprocessableEntity).
		contains("The email or password is incorrect.", `value="ada@example.com"`).lacks("not the password")
	unknown := b.signIn("bob@example.com", password).expect(http.StatusUnprocessableEntity).
		contains("The email or password is incorrect.", `value="bob@example.com"`)
	if wrong.cookie("cloudplane_session") != nil || unknown.cookie("cloudplane_session") != nil {
		t.Fatal("a failed sign-in set a session cookie")
	}
}

// The next parameter only ever leads to a page of this site, and never
// writes into a header: each attack lands on the home page, in Location
// for a plain form and in HX-Redirect for htmx.
func TestSignInRefusesOpenRedirects(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	cases := []struct{ next, want string }{
		{"/api-keys", "/api-keys"},
		{"/audit-events?resource=api_key&after=a%2Fb", "/audit-events?resource=api_key&after=a%2Fb"},
		{"/tickets/abc#comments", "/tickets/abc#comments"},
		{"/\r\nSet-Cookie: injected=1", "/"},
		{"/%0D%0ASet-Cookie:%20injected=1", "/"},
		{"/\t/evil.example", "/"},
		{"/%09/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"\t//evil.example", "/"},
		{" //evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"\\\\evil.example", "/"},
		{"//evil.example/", "/"},
		{"///evil.example/", "/"},
		{"/%2F%2Fevil.example", "/"},
		{"/%2f/evil.example", "/"},
		{"https://evil.example/", "/"},
		{"HTTPS:evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"/\x00javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/\u2028evil", "/"},
		{"", "/"},
	}
	for _, tc := range cases {
		for _, htmx := range []bool{false, true} {
			b := e.browser()
			form := b.get("/sign-in?next=" + url.QueryEscape(tc.next)).expect(http.StatusOK)
			if tc.want == "/" {
				form.lacks("evil", "injected", `name="next"`)
			}
			b.htmx = htmx
			res := b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}, "next": {tc.next}})
			res.redirectsTo(tc.want)
			// The session, the visitor's CSRF cookie cleared, the device
			// cookie and its single sign-on twin.
			if res.cookie("injected") != nil || len(res.Header.Values("Set-Cookie")) != 4 {
				t.Fatalf("next=%q set cookies %q", tc.next, res.Header.Values("Set-Cookie"))
			}
		}
	}
}

// Signing in again replaces the browser's session: a session id planted
// before sign-in is worthless after it.
func TestSignInRotatesTheSession(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	old := b.cookies["cloudplane_session"]
	b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}}).redirectsTo("/")
	if b.cookies["cloudplane_session"] == old {
		t.Fatal("session token not rotated")
	}
	stale := e.browser()
	stale.cookies["cloudplane_session"] = old
	stale.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
}

func TestSignOut(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	token := b.cookies["cloudplane_session"]
	res := b.post("/sign-out", nil).redirectsTo("/sign-in?notice=signed-out")
	if c := res.cookie("cloudplane_session"); c == nil || c.Value != "" {
		t.Fatalf("session cookie not cleared: %+v", c)
	}
	b.get("/sign-in?notice=signed-out").contains("You have signed out.")
	// The token is dead on the server too, not only forgotten by the browser.
	replay := e.browser()
	replay.cookies["cloudplane_session"] = token
	replay.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	if ev := modelstest.PersonalEvents(t, e.store, owner.ID, 1)[0]; ev.Action != "signed_out" {
		t.Fatalf("last event %+v", ev)
	}
}

func TestSessionTimeouts(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")

	idle := e.signedIn("ada@example.com")
	e.clock.Advance(11 * time.Hour)
	idle.get("/").expect(http.StatusOK)
	e.clock.Advance(12*time.Hour + time.Second)
	// A form left open past the session's end leads to sign-in, not to a
	// CSRF refusal, and changes nothing.
	late := *idle
	late.cookies = map[string]string{"cloudplane_session": idle.cookies["cloudplane_session"]}
	late.post("/api-keys", url.Values{"name": {"late"}}).redirectsTo("/sign-in?notice=expired")
	if keys, _ := e.store.APIKeys(context.Background(), ada.Actor()); len(keys) != 0 {
		t.Fatalf("a key was made after the session ended: %+v", keys)
	}
	idle.get("/account").redirectsTo("/sign-in?next=%2Faccount&notice=expired")
	idle.get("/sign-in?notice=expired").contains("Your session has ended.")

	busy := e.signedIn("ada@example.com")
	for used := time.Duration(0); used < 7*24*time.Hour; used += 10 * time.Hour {
		busy.get("/").expect(http.StatusOK)
		e.clock.Advance(10 * time.Hour)
	}
	busy.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
}

// signInLimits builds the password limiters on the test clock, each
// allowing burst attempts then one a minute; a device cookie has the
// pair's budget, and an account's known devices the account's, as in
// production.
func signInLimits(perPair, perAccount, perAddress int) func(*modelstest.Clock) web.Limits {
	return func(c *modelstest.Clock) web.Limits {
		return web.Limits{SignInPerAccountAddress: perMinute(c, perPair), SignInPerAccount: perMinute(c, perAccount),
			SignInPerAddress: perMinute(c, perAddress), SignInPerDevice: perMinute(c, perPair),
			SignInKnownDevicesPerAccount: perMinute(c, perAccount)}
	}
}

// perMinute is an in-memory limiter on the test clock allowing burst
// requests at once, then one a minute.
func perMinute(c *modelstest.Clock, burst int) ratelimit.Limiter {
	l, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Minute, Burst: burst}, ratelimit.WithClock(c.Now))
	if err != nil {
		panic(err)
	}
	return l
}

// from makes the browser's requests come from client, as named by the
// trusted proxy (the env must trust 0.0.0.0).
func (b *browser) from(client string) *browser {
	b.header.Set("X-Real-IP", client)
	return b
}

// Attempts on one account are throttled whatever their address; attempts
// from one address are throttled whatever the account. A throttled attempt
// is refused before the password is checked, even a right one.
func TestSignInThrottle(t *testing.T) {
	t.Run("per account", func(t *testing.T) {
		e := newEnv(t, withLimits(signInLimits(100, 3, 100)), withTrustedProxies("0.0.0.0"))
		e.owner("ada@example.com")
		for i := 0; i < 3; i++ {
			b := e.browser().from(fmt.Sprintf("198.51.100.%d", i+1))
			b.signIn("ada@example.com", "wrong password").expect(http.StatusUnprocessableEntity)
		}
		b := e.browser().from("198.51.100.9")
		res := b.signIn("ADA@example.com", password).expect(http.StatusTooManyRequests).
			contains("Too many sign-in attempts. Wait 60 seconds, then try again.")
		if res.Header.Get("Retry-After") == "" || res.cookie("cloudplane_session") != nil {
			t.Fatalf("throttled answer: %v", res.Header)
		}
		e.browser().signIn("bob@example.com", password).expect(http.StatusUnprocessableEntity)
		e.clock.Advance(time.Minute)
		b.signIn("ada@example.com", password).redirectsTo("/")
	})
	t.Run("per address", func(t *testing.T) {
		e := newEnv(t, withLimits(signInLimits(100, 100, 2)))
		e.owner("ada@example.com")
		b := e.browser()
		b.signIn("x@example.com", password).expect(http.StatusUnprocessableEntity)
		b.signIn("y@example.com", password).expect(http.StatusUnprocessableEntity)
		b.signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
	})
}

// An IPv6 client is one /64: attempts from any address in it share the
// per-address budget and the per-account-and-address one; another /64
// has its own.
func TestSignInThrottlesIPv6ByItsSlash64(t *testing.T) {
	t.Run("per address", func(t *testing.T) {
		e := newEnv(t, withLimits(signInLimits(100, 100, 2)), withTrustedProxies("0.0.0.0"))
		e.owner("ada@example.com")
		e.browser().from("2001:db8:1:2::1").signIn("x@example.com", password).expect(http.StatusUnprocessableEntity)
		e.browser().from("2001:db8:1:2::2").signIn("y@example.com", password).expect(http.StatusUnprocessableEntity)
		e.browser().from("2001:db8:1:2:ffff::3").signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
		e.browser().from("2001:db8:1:3::1").signIn("ada@example.com", password).redirectsTo("/")
	})
	t.Run("per account and address", func(t *testing.T) {
		e := newEnv(t, withLimits(signInLimits(2, 100, 100)), withTrustedProxies("0.0.0.0"))
		e.owner("ada@example.com")
		for i := range 2 {
			e.browser().from(fmt.Sprintf("2001:db8:1:2::%x", i+10)).signIn("ada@example.com", "wrong").expect(http.StatusUnprocessableEntity)
		}
		e.browser().from("2001:db8:1:2::99").signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
		e.browser().from("2001:db8:9:2::1").signIn("ada@example.com", password).redirectsTo("/")
	})
}

// A guesser who exhausts their attempts on the owner's account slows only
// themselves: the owner, from another address, signs in at once, with the
// production ratio of a tight pair limit under a loose account limit.
func TestSignInGuesserDoesNotLockOutTheOwner(t *testing.T) {
	e := newEnv(t, withLimits(signInLimits(5, 20, 20)), withTrustedProxies("0.0.0.0"))
	e.owner("ada@example.com")
	attacker := e.browser().from("203.0.113.66")
	for i := 0; i < 5; i++ {
		attacker.signIn("ada@example.com", fmt.Sprintf("guess number %d", i)).expect(http.StatusUnprocessableEntity)
	}
	for i := 0; i < 10; i++ {
		attacker.signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
	}
	e.browser().from("198.51.100.7").signIn("ada@example.com", password).redirectsTo("/")
	// The attacker's own address may still sign in to another account.
	e.owner("bob@example.com")
	attacker.signIn("bob@example.com", password).redirectsTo("/")
}

// Before the first user exists nobody can sign in: the page tells a
// customer to ask their administrator, and where the setup link is only
// under a disclosure for the administrator. The page links to the
// self-service reset.
func TestSignInBeforeSetup(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.get("/sign-in").expect(http.StatusOK).
		contains("This service is not set up yet", "Ask your administrator",
			"<summary>Are you the administrator?</summary>", "setup link the server printed in its log",
			`<a href="/forgot-password">Forgot your password?</a>`)
	e.owner("ada@example.com")
	b.get("/sign-in").expect(http.StatusOK).lacks("This service is not set up yet", "setup link").
		contains(`<a href="/forgot-password">Forgot your password?</a>`)
}
