package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// ssoBase is the dashboard's public URL in these tests.
const ssoBase = "http://cloudplane.test"

// withSSO configures the provider "corp" (named "Corp") at op, checking
// tokens against the test's clock; trustEmail is its TrustEmail.
func withSSO(op **testOP, trustEmail bool) envOption {
	return func(s *envSetup) {
		*op = newTestOP((*op).t, s.clock.Now)
		sso, err := web.NewSSO([]web.SSOProvider{{ID: "corp", Name: "Corp", Issuer: (*op).issuer(),
			ClientID: opClientID, ClientSecret: opClientSecret, TrustEmail: trustEmail}}, ssoBase, nil, web.WithSSOClock(s.clock.Now))
		if err != nil {
			(*op).t.Fatal(err)
		}
		s.app.SSO = sso
	}
}

func newSSOEnv(t *testing.T) (*env, *testOP) {
	op := &testOP{t: t}
	e := newEnv(t, withSSO(&op, false))
	return e, op
}

// ssoRedirect starts a single sign-on in b and returns the provider's
// answer: the callback path and query the provider sends the browser to.
func ssoRedirect(t *testing.T, b *browser, next string) string {
	t.Helper()
	return ssoFollow(t, b.get("/sso/corp/start?next="+url.QueryEscape(next)).expect(http.StatusSeeOther))
}

// ssoFollow takes start's redirect to the provider and returns the
// provider's answer: the callback path and query.
func ssoFollow(t *testing.T, start *page) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(start.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	back := res.Header.Get("Location")
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(back, ssoBase+"/sso/corp/callback?") {
		t.Fatalf("provider answered %d to %q", res.StatusCode, back)
	}
	return strings.TrimPrefix(back, ssoBase)
}

// ssoConnect connects the provider's current user to b's signed-in user
// from the account page, and returns the callback's answer.
func ssoConnect(t *testing.T, b *browser) *page {
	t.Helper()
	return b.get(ssoFollow(t, b.get("/account/sso/corp/connect?csrf_token="+b.csrf).expect(http.StatusSeeOther)))
}

// connectIdentity connects subject at "corp" to u, as the account page's
// Connect would, without a browser (and so without a sign-in's mail).
func (e *env) connectIdentity(u *models.User, subject string) {
	e.t.Helper()
	if err := e.store.DB().Create(&models.SSOIdentity{Provider: "corp", Subject: subject, UserID: u.ID,
		Email: u.Email, CreatedAt: e.clock.Now()}).Error; err != nil {
		e.t.Fatal(err)
	}
}

// ssoSignIn signs b in through the provider's current user.
func ssoSignIn(t *testing.T, b *browser, next string) *page {
	t.Helper()
	return b.get(ssoRedirect(t, b, next))
}

// The whole flow: an owner signed in with their password connects the
// provider from their account page, links their domain with the viewer
// role; a newcomer from it then joins just in time as a viewer, and the
// provider is in the signed_in event; the owner's password no longer
// works, the provider signs them in.
func TestSSOSignInLinkAndJoin(t *testing.T) {
	e, op := newSSOEnv(t)
	ctx := context.Background()
	alice := e.owner("alice@corp.example")

	e.browser().get("/sign-in").expect(http.StatusOK).contains(`href="/sso/corp/start"`, "Sign in with Corp")

	b := e.signedIn("alice@corp.example")
	op.signIn("alice-sub", "alice@corp.example", true)
	ssoConnect(t, b).redirectsTo("/account#sso-connections")
	b.get("/members").expect(http.StatusOK).contains(`id="sso"`, "Single sign-on")
	b.post("/members/sso", url.Values{"domain": {"gmail.com"}, "provider": {"corp"}}).
		expect(http.StatusUnprocessableEntity).contains("public mail service")
	b.post("/members/sso", url.Values{"domain": {"corp.example"}, "provider": {"corp"}, "default_role": {"viewer"}}).
		expect(http.StatusSeeOther)
	b.get("/members").contains("corp.example", "/members/sso/corp.example/unlink")

	newcomer := e.browser()
	op.signIn("bob-sub", "bob@corp.example", "true") // a provider that sends a string
	e.clock.Advance(time.Second)
	ssoSignIn(t, newcomer, "").expect(http.StatusSeeOther).redirectsTo("/")
	newcomer.get("/").expect(http.StatusOK).contains("bob@corp.example")
	bob, err := e.store.UserByEmail(ctx, "bob@corp.example")
	if err != nil {
		t.Fatal(err)
	}
	ev := modelstest.PersonalEvents(t, e.store, bob.ID, 1)
	if len(ev) != 1 || ev[0].Action != "signed_in" || !strings.Contains(string(ev[0].AdditionalDetails), `"method":"sso:corp"`) {
		t.Fatalf("sign-in event %+v", ev)
	}
	members, err := e.store.Members(ctx, alice.Actor(), "")
	if err != nil {
		t.Fatal(err)
	}
	joined := false
	for _, m := range members {
		joined = joined || m.Email == "bob@corp.example" && m.Role == models.RoleViewer
	}
	if !joined {
		t.Fatalf("members %+v: bob did not join as a viewer", members)
	}

	e.browser().signIn("alice@corp.example", password).expect(http.StatusUnprocessableEntity).
		contains("single sign-on", "Sign in with Corp")
	op.signIn("alice-sub", "alice@corp.example", true)
	ssoSignIn(t, e.browser(), "/members").expect(http.StatusSeeOther).redirectsTo("/members")
	e.browser().signIn("bob@corp.example", "").expect(http.StatusUnprocessableEntity).contains("single sign-on")
}

// A provider that does not vouch for the email (email_verified missing)
// signs nobody in by email.
func TestSSOUnverifiedEmailRefused(t *testing.T) {
	e, op := newSSOEnv(t)
	e.owner("carol@example.com")
	b := e.browser()
	op.signIn("carol-sub", "carol@example.com", nil)
	ssoSignIn(t, b, "").expect(http.StatusForbidden).contains("has not verified")
	if _, ok := b.cookies[web.SessionCookie]; ok {
		t.Fatal("a session was started")
	}
}

// A provider the operator trusts with emails (Entra ID sends no
// email_verified) vouches for its people without the claim: its
// identity's email proves the owner's domain, and a newcomer joins.
func TestSSOTrustedProviderEmail(t *testing.T) {
	op := &testOP{t: t}
	e := newEnv(t, withSSO(&op, true))
	e.owner("erin@corp.example")
	b := e.signedIn("erin@corp.example")
	op.signIn("erin-sub", "erin@corp.example", nil)
	ssoConnect(t, b).redirectsTo("/account#sso-connections")
	b.post("/members/sso", url.Values{"domain": {"corp.example"}, "provider": {"corp"}}).expect(http.StatusSeeOther)
	op.signIn("finn-sub", "finn@corp.example", nil)
	newcomer := e.browser()
	ssoSignIn(t, newcomer, "").expect(http.StatusSeeOther).redirectsTo("/")
	newcomer.get("/").expect(http.StatusOK).contains("finn@corp.example")
}

// The threats at the callback: each is refused with a page, and nobody
// is signed in.
func TestSSOCallbackThreats(t *testing.T) {
	e, op := newSSOEnv(t)
	e.owner("dave@example.com")
	op.signIn("dave-sub", "dave@example.com", true)
	ssoConnect(t, e.signedIn("dave@example.com")).redirectsTo("/account#sso-connections")
	other := newTestOP(t, e.clock.Now)
	cases := []struct {
		name   string
		attack func(b *browser, callback string) *page
		want   string
	}{
		{"tampered state", func(b *browser, cb string) *page {
			return b.get(strings.Replace(cb, "state=", "state=x", 1))
		}, "invalid, expired or was started in another browser"},
		{"callback in another browser", func(_ *browser, cb string) *page {
			return e.browser().get(cb)
		}, "invalid, expired or was started in another browser"},
		{"replayed callback", func(b *browser, cb string) *page {
			b.get(cb).expect(http.StatusSeeOther)
			delete(b.cookies, web.SessionCookie)
			return b.get(cb)
		}, "invalid, expired or was started in another browser"},
		{"wrong nonce", func(b *browser, cb string) *page {
			op.tamper = func(c map[string]any) { c["nonce"] = "not-the-one-sent" }
			return b.get(cb)
		}, "could not be verified"},
		{"expired ID token", func(b *browser, cb string) *page {
			op.tamper = func(c map[string]any) { c["exp"] = e.clock.Now().Add(-time.Minute).Unix() }
			return b.get(cb)
		}, "could not be verified"},
		{"ID token from another issuer", func(b *browser, cb string) *page {
			op.tamper = func(c map[string]any) { c["iss"] = other.issuer() }
			op.signer = other
			return b.get(cb)
		}, "could not be verified"},
		{"ID token for another client", func(b *browser, cb string) *page {
			op.tamper = func(c map[string]any) { c["aud"] = "someone-else" }
			return b.get(cb)
		}, "could not be verified"},
		{"late callback", func(b *browser, cb string) *page {
			e.clock.Advance(models.SSOLoginTTL + time.Second)
			return b.get(cb)
		}, "invalid, expired or was started in another browser"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op.tamper, op.signer = nil, nil
			op.signIn("dave-sub", "dave@example.com", true)
			b := e.browser()
			cb := ssoRedirect(t, b, "")
			p := tc.attack(b, cb).expect(http.StatusForbidden).contains(tc.want, `href="/sign-in"`)
			for _, c := range p.Header.Values("Set-Cookie") {
				if strings.HasPrefix(c, web.SessionCookie+"=") && !strings.HasPrefix(c, web.SessionCookie+"=;") {
					t.Fatalf("a session cookie was set: %s", c)
				}
			}
		})
	}
	// The same browser, untampered, signs in: the refusals above were the
	// attacks', not the set-up's.
	op.tamper, op.signer = nil, nil
	ssoSignIn(t, e.browser(), "").expect(http.StatusSeeOther).redirectsTo("/")
}

// Starting a single sign-on writes a row, so a client's starts are
// throttled by the sign-in budget of its address.
func TestSSOStartThrottled(t *testing.T) {
	op := &testOP{t: t}
	e := newEnv(t, withSSO(&op, false), withLimits(func(c *modelstest.Clock) web.Limits {
		return web.Limits{SignInPerAddress: perMinute(c, 2)}
	}))
	b := e.browser()
	b.get("/sso/corp/start").expect(http.StatusSeeOther)
	b.get("/sso/corp/start").expect(http.StatusSeeOther)
	b.get("/sso/corp/start").expect(http.StatusTooManyRequests).contains("Too many sign-in attempts")
	e.clock.Advance(time.Minute)
	b.get("/sso/corp/start").expect(http.StatusSeeOther)
}

// An unknown provider is not found; nothing is configured, no buttons.
func TestSSOUnknownProvider(t *testing.T) {
	e, _ := newSSOEnv(t)
	e.browser().get("/sso/nope/start").expect(http.StatusNotFound)
	e.browser().get("/sso/nope/callback?state=x&code=y").expect(http.StatusNotFound)
	plain := newEnv(t)
	plain.browser().get("/sign-in").expect(http.StatusOK).lacks("/sso/")
}
