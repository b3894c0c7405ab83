package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// codeAt is the code an authenticator app shows at t.
func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// withTOTP turns TOTP on for u and returns the secret and recovery
// codes; the clock moves a step on.
func (e *env) withTOTP(u *models.User) (string, []string) {
	e.t.Helper()
	ctx := context.Background()
	en, err := e.store.StartSecondFactorEnrolment(ctx, u.Actor())
	if err != nil {
		e.t.Fatal(err)
	}
	codes, err := e.store.ConfirmSecondFactor(ctx, u.Actor(), codeAt(e.t, en.Secret, e.clock.Now()))
	if err != nil {
		e.t.Fatal(err)
	}
	e.clock.Advance(30 * time.Second)
	return en.Secret, codes
}

// The password of a user with TOTP leaves the browser half signed in: a
// cookie of its own that opens no page, and is no session cookie either.
// The code finishes the sign-in where the browser first asked to go.
func TestHalfSignedInOpensNothing(t *testing.T) {
	e := newEnv(t)
	u := e.owner("ada@example.com")
	secret, _ := e.withTOTP(u)
	b := e.browser()
	b.get("/sign-in?next=/api-keys")
	res := b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}, "next": {"/api-keys"}})
	res.redirectsTo("/sign-in/second-factor")
	c := res.cookie("cloudplane_pending")
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("pending cookie %+v", c)
	}
	if res.cookie(web.SessionCookie) != nil && res.cookie(web.SessionCookie).Value != "" {
		t.Fatal("a session cookie before the second factor")
	}
	for _, path := range []string{"/", "/account", "/api-keys"} {
		b.get(path).redirectsTo("/sign-in?next=" + url.QueryEscape(path))
	}
	// The pending token as a session cookie opens nothing either.
	thief := e.browser()
	thief.cookies[web.SessionCookie] = c.Value
	for _, path := range []string{"/", "/account", "/api-keys"} {
		if p := thief.get(path); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/sign-in") {
			t.Fatalf("%s with the pending token as session: %d", path, p.Status)
		}
	}

	b.get("/sign-in/second-factor").expect(http.StatusOK).contains(`name="code"`, `autocomplete="one-time-code"`)
	b.post("/sign-in/second-factor", url.Values{"code": {"abc"}}).expect(http.StatusForbidden).contains("incorrect")
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/api-keys")
	b.get("/api-keys").expect(http.StatusOK).contains("ada@example.com")
	if _, ok := b.cookies["cloudplane_pending"]; ok {
		t.Fatal("the pending cookie outlived the sign-in")
	}
	b.get("/sign-in/second-factor").redirectsTo("/") // signed in already
	// Used up: replayed, the step's page sends the browser back to sign in.
	replay := e.browser()
	replay.cookies["cloudplane_pending"] = c.Value
	replay.get("/sign-in/second-factor").redirectsTo("/sign-in?notice=expired")
}

// The code step is throttled by the password limiters: past the budget
// even the right code waits, and nothing reaches the pending sign-in.
func TestSecondFactorCodesAreThrottled(t *testing.T) {
	e := newEnv(t, withLimits(func(c *modelstest.Clock) web.Limits {
		return web.Limits{SignInPerAccountAddress: perMinute(c, 3)}
	}))
	u := e.owner("ada@example.com")
	secret, _ := e.withTOTP(u)
	b := e.browser()
	b.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	b.get("/sign-in/second-factor")
	for i := 0; i < 3; i++ {
		b.post("/sign-in/second-factor", url.Values{"code": {"000000"}}).expect(http.StatusForbidden)
	}
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).
		expect(http.StatusTooManyRequests).contains("Too many attempts")
	e.clock.Advance(time.Minute)
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/")
}

// After five minutes the half-signed-in state is gone.
func TestHalfSignedInExpires(t *testing.T) {
	e := newEnv(t)
	u := e.owner("ada@example.com")
	secret, _ := e.withTOTP(u)
	b := e.browser()
	b.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	b.get("/sign-in/second-factor").expect(http.StatusOK)
	e.clock.Advance(5 * time.Minute)
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).
		redirectsTo("/sign-in?notice=expired")
	b.get("/").redirectsTo("/sign-in?next=%2F")
}

// A reset link sets the password but leaves the browser half signed in.
func TestPasswordResetAsksForTheCode(t *testing.T) {
	e := newEnv(t)
	u := e.owner("ada@example.com")
	secret, _ := e.withTOTP(u)
	token, err := e.store.StartPasswordReset(context.Background(), models.OperatorActor, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.get("/reset-password/" + token).expect(http.StatusOK)
	b.post("/reset-password/"+token, url.Values{"password": {"a brand new passphrase"}, "password_confirm": {"a brand new passphrase"}}).
		redirectsTo("/sign-in/second-factor")
	b.get("/").redirectsTo("/sign-in?next=%2F")
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo("/")
	b.get("/").expect(http.StatusOK)
}

// Enrolling from the account page: a QR code drawn by the server, the
// secret as text, a code to turn it on, and the recovery codes once.
func TestAccountTwoFactorSection(t *testing.T) {
	e := newEnv(t)
	u := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/account").expect(http.StatusOK).contains(`id="two-factor"`, "Set up two-factor authentication")
	b.post("/account/two-factor/start", nil).redirectsTo("/account#two-factor")
	page := b.get("/account").expect(http.StatusOK).contains(`src="data:image/png;base64,`, `action="/account/two-factor/confirm"`)
	st, err := e.store.SecondFactorStatus(context.Background(), u.Actor())
	if err != nil || st.Pending == nil {
		t.Fatalf("status %+v %v", st, err)
	}
	page.contains(st.Pending.Secret)
	b.post("/account/two-factor/confirm", url.Values{"code": {"000000"}}).expect(http.StatusForbidden)
	b.post("/account/two-factor/confirm", url.Values{"code": {codeAt(t, st.Pending.Secret, e.clock.Now())}}).
		redirectsTo("/account?codes=1#two-factor")
	shown := b.get("/account?codes=1").expect(http.StatusOK).contains("Save these recovery codes now", "is <strong>on</strong>")
	b.get("/account?codes=1").expect(http.StatusOK).lacks("Save these recovery codes now")
	// A shown recovery code signs in, once.
	first := strings.SplitN(strings.SplitN(shown.Body, `<ul class="recovery-codes"><li><code>`, 2)[1], "<", 2)[0]
	other := e.browser()
	other.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	other.post("/sign-in/second-factor", url.Values{"code": {first}}).redirectsTo("/")
}

// An owner requiring a second factor leads a member without one to the
// enrol step at their next sign-in; the session starts once a code
// confirms it, and the recovery codes are shown.
func TestRequiredSecondFactorLeadsToEnrol(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	modelstest.Member(t, e.store, owner.Actor(), "bob@example.com", models.RoleMember)
	ob := e.signedIn("ada@example.com")
	ob.get("/account").contains("Require it of every member")
	ob.post("/account/two-factor/require", url.Values{"require": {"on"}}).redirectsTo("/account#two-factor")

	b := e.browser()
	b.signIn("bob@example.com", password).redirectsTo("/sign-in/enrol")
	b.get("/sign-in/second-factor").redirectsTo("/sign-in?notice=expired") // wrong step; the cookie is dropped
	b.signIn("bob@example.com", password).redirectsTo("/sign-in/enrol")
	page := b.get("/sign-in/enrol").expect(http.StatusOK).contains(`src="data:image/png;base64,`)
	b.get("/").redirectsTo("/sign-in?next=%2F")
	m := regexpSecret.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no secret on the enrol page:\n%s", page.Body)
	}
	b.post("/sign-in/enrol", url.Values{"code": {codeAt(t, m[1], e.clock.Now())}}).expect(http.StatusOK).
		contains("Save these recovery codes now", `href="/"`)
	b.get("/").expect(http.StatusOK).contains("bob@example.com")
}

// With --require-2fa-support on, support staff enrol at sign-in.
func TestSupportStaffEnrolWhenRequired(t *testing.T) {
	e := newEnv(t, withConfig(func(c *models.Config) { c.RequireSecondFactorForSupport = true }))
	e.user("sam@example.com", models.RoleSupport)
	b := e.browser()
	b.signIn("sam@example.com", password).redirectsTo("/sign-in/enrol")
	b.get("/").redirectsTo("/sign-in?next=%2F")
}

var regexpSecret = regexp.MustCompile(`<code class="secret">([A-Z2-7]+)</code>`)
