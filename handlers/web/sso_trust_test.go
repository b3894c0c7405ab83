package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// noSession fails when p set a session cookie or a pending sign-in's.
func noSession(t *testing.T, p *page) {
	t.Helper()
	for _, c := range p.Header.Values("Set-Cookie") {
		for _, name := range []string{web.SessionCookie + "=", "cloudplane_pending="} {
			if strings.HasPrefix(c, name) && !strings.HasPrefix(c, name+";") {
				t.Fatalf("a cookie was set: %s", c)
			}
		}
	}
}

// The review's exploit: company B's provider mints a verified
// staff@operator.example and the attacker clicks "Sign in with B". The
// support user, who has TOTP, is neither signed in nor half signed in,
// and the page says how the real person connects the provider.
func TestSSOTakeoverOfSupportStaffRefused(t *testing.T) {
	e, op := newSSOEnv(t)
	staff := e.user("staff@operator.example", models.RoleSupport)
	e.withTOTP(staff)
	op.signIn("attacker-sub", "staff@operator.example", true)
	b := e.browser()
	p := ssoSignIn(t, b, "/accounts").expect(http.StatusForbidden).
		contains("Sign in with your password, then connect Corp from your account page")
	noSession(t, p)
	b.get("/accounts").redirectsTo("/sign-in?next=" + url.QueryEscape("/accounts"))
}

// In a domain linked to the provider, an existing member signs in through
// it at once: their identity is linked by the verified email.
func TestSSOLinksExistingMemberOfLinkedDomain(t *testing.T) {
	e, op := newSSOEnv(t)
	alice := e.owner("alice@corp.example")
	owner := e.signedIn("alice@corp.example")
	op.signIn("alice-sub", "alice@corp.example", true)
	ssoConnect(t, owner).redirectsTo("/account#sso-connections")
	owner.post("/members/sso", url.Values{"domain": {"corp.example"}, "provider": {"corp"}}).expect(http.StatusSeeOther)
	modelstest.Member(t, e.store, alice.Actor(), "bob@corp.example", models.RoleMember)

	op.signIn("bob-sub", "bob@corp.example", true)
	b := e.browser()
	ssoSignIn(t, b, "").expect(http.StatusSeeOther).redirectsTo("/")
	b.get("/").expect(http.StatusOK).contains("bob@corp.example")
}

// Connecting links the provider's identity to the signed-in user only:
// it needs a recent authentication, refuses a subject another user owns,
// and a connect begun by one session is not finished by another's.
// Disconnecting removes it.
func TestSSOConnectFromAccountPage(t *testing.T) {
	e, op := newSSOEnv(t)
	ctx := context.Background()
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/account").expect(http.StatusOK).contains(`id="sso-connections"`, "No connected sign-ins yet",
		`href="/account/sso/corp/connect?csrf_token=`+b.csrf+`"`, "Connect Corp")
	// The link carries the session's CSRF token: without it, or from
	// another site, nothing starts.
	b.get("/account/sso/corp/connect").expect(http.StatusForbidden)
	req := httptest.NewRequest(http.MethodGet, "/account/sso/corp/connect?csrf_token="+b.csrf, nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	b.send(req).expect(http.StatusForbidden)

	op.signIn("ada-sub", "ada.work@example.org", true)
	e.clock.Advance(time.Second) // the connect's event comes after the sign-in's
	ssoConnect(t, b).redirectsTo("/account#sso-connections")
	b.get("/account").expect(http.StatusOK).contains("ada.work@example.org", "Disconnect", `value="ada-sub"`)
	ev := modelstest.PersonalEvents(t, e.store, ada.ID, 1)
	if ev[0].Action != "updated" || !strings.Contains(string(ev[0].AdditionalDetails), `"sso_identity":"connected"`) {
		t.Fatalf("event %s %s", ev[0].Action, ev[0].AdditionalDetails)
	}

	// bob, signed in, cannot take ada's identity.
	bob := e.signedIn("bob@example.com")
	ssoConnect(t, bob).expect(http.StatusConflict).contains("connected to another cloudplane user")

	// A connect begun by ada, finished after bob signed in in her browser,
	// connects nobody.
	op.signIn("ada-other-sub", "ada@example.com", true)
	cb := ssoFollow(t, b.get("/account/sso/corp/connect?csrf_token="+b.csrf).expect(http.StatusSeeOther))
	b.post("/sign-out", nil)
	b.signIn("bob@example.com", password).expect(http.StatusSeeOther)
	b.get(cb).expect(http.StatusForbidden).contains("started by another session")
	for _, u := range []string{"ada@example.com", "bob@example.com"} {
		user, _ := e.store.UserByEmail(ctx, u)
		if ids, _ := e.store.SSOIdentities(ctx, user.Actor()); len(ids) != map[string]int{"ada@example.com": 1}[u] {
			t.Fatalf("%s has identities %+v", u, ids)
		}
	}

	// Past the re-authentication window, both ask who it is first.
	a := e.signedIn("ada@example.com")
	e.clock.Advance(models.ReauthWindow + time.Second)
	a.get("/account/sso/corp/connect?csrf_token=" + a.csrf).redirectsTo("/confirm-identity?next=%2Faccount")
	a.post("/account/sso/disconnect", url.Values{"provider": {"corp"}, "subject": {"ada-sub"}}).
		redirectsTo("/confirm-identity?next=%2Faccount&form=1")
	a.post("/confirm-identity", url.Values{"next": {"/account"}, "password": {password}}).redirectsTo("/account")
	a.post("/account/sso/disconnect", url.Values{"provider": {"corp"}, "subject": {"ada-sub"}}).
		redirectsTo("/account#sso-connections")
	a.get("/account").expect(http.StatusOK).contains("No connected sign-ins yet")
}

// Through a provider her domain is not linked to, a user with TOTP is
// held for the code as after a password; the code finishes the sign-in.
func TestSSOSignInAsksForTheSecondFactor(t *testing.T) {
	e, op := newSSOEnv(t)
	ada := e.owner("ada@example.com")
	op.signIn("ada-sub", "ada@example.com", true)
	ssoConnect(t, e.signedIn("ada@example.com")).redirectsTo("/account#sso-connections")
	secret, _ := e.withTOTP(ada)

	b := e.browser()
	p := ssoSignIn(t, b, "/api-keys").redirectsTo("/sign-in/second-factor")
	if c := p.cookie(web.SessionCookie); c != nil && c.Value != "" {
		t.Fatal("a session before the second factor")
	}
	// The provider alone, one factor, makes no browser known.
	if deviceCookieReaches(p, "/sign-in", false) || deviceCookieReaches(p, "/sso/corp/callback", true) {
		t.Fatal("a device cookie before the second factor")
	}
	b.get("/api-keys").redirectsTo("/sign-in?next=" + url.QueryEscape("/api-keys"))
	b.get("/sign-in/second-factor").expect(http.StatusOK).contains(`name="code"`)
	done := b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/api-keys")
	if !deviceCookieReaches(done, "/sso/corp/callback", true) {
		t.Fatal("no device cookie once the sign-in is whole")
	}
	b.get("/api-keys").expect(http.StatusOK).contains("ada@example.com")
}

// A browser signed in through an identity connected with another address
// is known under the user's own login: their password sign-in from it
// next, or the provider's again, is not a new browser's.
func TestSSOSignInRemembersTheUsersLogin(t *testing.T) {
	e, op := newSSOEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").post("/sign-out", nil) // the first sign-in ever is never mailed
	op.signIn("ada-sub", "ada.work@example.org", true)
	ssoConnect(t, e.signedIn("ada@example.com")).redirectsTo("/account#sso-connections")
	mails := e.newSignInMails()

	b := e.browser()
	e.clock.Advance(time.Minute)
	ssoSignIn(t, b, "").redirectsTo("/")
	if n := e.newSignInMails(); n != mails+1 {
		t.Fatalf("a new browser through the provider: %d mails, want %d", n, mails+1)
	}
	b.post("/sign-out", nil)
	e.clock.Advance(time.Minute)
	b.signIn("ada@example.com", password).redirectsTo("/")
	if n := e.newSignInMails(); n != mails+1 {
		t.Fatalf("the same browser with the password: %d mails, want %d (it was not remembered as ada's)", n, mails+1)
	}
	b.post("/sign-out", nil)
	e.clock.Advance(time.Minute)
	ssoSignIn(t, b, "").redirectsTo("/")
	if n := e.newSignInMails(); n != mails+1 {
		t.Fatalf("the same browser through the provider again: %d mails, want %d", n, mails+1)
	}
}
