package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const deviceCookie = "cloudplane_device"

// deviceLimits are the sign-in limits of these tests: strangers may try
// an account 3 times, known devices 10 times together, one device 5.
func deviceLimits() envOption {
	return withLimits(func(c *modelstest.Clock) web.Limits {
		return web.Limits{SignInPerAccountAddress: perMinute(c, 5), SignInPerAccount: perMinute(c, 3),
			SignInPerAddress: perMinute(c, 20), SignInPerDevice: perMinute(c, 5),
			SignInKnownDevicesPerAccount: perMinute(c, 10)}
	})
}

// drainAccount has strangers guess the password of email, each from an
// address of their own, until the account's budget for strangers is
// spent and even the right password is refused.
func drainAccount(e *env, email string) {
	e.t.Helper()
	for i := range 100 {
		if e.browser().from(fmt.Sprintf("203.0.113.%d", i+1)).signIn(email, "a guess").Status == http.StatusTooManyRequests {
			e.browser().from("203.0.113.200").signIn(email, password).expect(http.StatusTooManyRequests)
			return
		}
	}
	e.t.Fatal("100 strangers' guesses did not spend the account's budget")
}

// closeBrowser forgets the session, as closing the browser does; the
// device cookie stays.
func (b *browser) closeBrowser() *browser {
	delete(b.cookies, "cloudplane_session")
	return b
}

// A browser that signed in to the account before is not locked out by
// strangers who spent the account's budget from many addresses: it signs
// in from anywhere, again and again, while a browser new to the server
// is still refused. The device cookie is HttpOnly, SameSite=Strict, sent
// only to the sign-in form, and survives signing out.
func TestKnownDeviceIsNotThrottledByStrangers(t *testing.T) {
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"))
	e.owner("ada@example.com")
	owner := e.browser().from("198.51.100.7")
	res := owner.signIn("ada@example.com", password).redirectsTo("/")
	c := res.cookie(deviceCookie)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/sign-in" || c.MaxAge < 300*24*3600 {
		t.Fatalf("device cookie %+v", c)
	}
	owner.get("/").expect(http.StatusOK)
	owner.post("/sign-out", nil).redirectsTo("/sign-in?notice=signed-out")

	drainAccount(e, "ada@example.com")
	for i := range 8 {
		owner.from(fmt.Sprintf("192.0.2.%d", i+1)) // she moves between networks
		owner.signIn("ADA@example.com", password).redirectsTo("/")
		owner.closeBrowser()
	}
	e.browser().from("198.51.100.8").signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
}

// A device cookie counts only for the login it was issued for, and only
// as issued: another user's, an altered one or one made up are a
// stranger's, held to the account's spent budget.
func TestForeignOrAlteredDeviceCookiesAreStrangers(t *testing.T) {
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"))
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	bob := e.browser().from("198.51.100.9")
	bob.signIn("bob@example.com", password).redirectsTo("/")
	bobs := bob.cookies[deviceCookie]
	ada := e.browser().from("198.51.100.7")
	ada.signIn("ada@example.com", password).redirectsTo("/")
	adas := ada.cookies[deviceCookie]
	if bobs == "" || adas == "" {
		t.Fatal("no device cookies issued")
	}
	drainAccount(e, "ada@example.com")
	payload, sig, _ := strings.Cut(adas, ".")
	flip := func(s string) string { // change one base64 character
		b := []byte(s)
		b[len(b)/2] ^= 'A' ^ 'B'
		return string(b)
	}
	for name, cookie := range map[string]string{
		"bob's":             bobs,
		"payload altered":   flip(payload) + "." + sig,
		"signature altered": payload + "." + flip(sig),
		"made up":           "AAAA.AAAA",
	} {
		b := e.browser().from("198.51.100.20")
		b.cookies[deviceCookie] = cookie
		b.signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
		t.Logf("%s: refused as a stranger", name)
	}
	// Ada's own cookie, unaltered, still works.
	b := e.browser().from("198.51.100.21")
	b.cookies[deviceCookie] = adas
	b.signIn("ada@example.com", password).redirectsTo("/")
}

// A device cookie that fails too often is locked out itself, even with
// the right password, until its budget refills; the account's other
// browsers and the account's budget for strangers are untouched.
func TestGuessingDeviceCookieLocksOutOnlyItself(t *testing.T) {
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"))
	e.owner("ada@example.com")
	laptop, phone := e.browser().from("198.51.100.7"), e.browser().from("198.51.100.8")
	laptop.signIn("ada@example.com", password).redirectsTo("/")
	phone.signIn("ada@example.com", password).redirectsTo("/")
	laptop.closeBrowser()
	phone.closeBrowser()

	for i := range 5 {
		laptop.signIn("ada@example.com", fmt.Sprintf("guess %d", i)).expect(http.StatusUnprocessableEntity)
	}
	laptop.signIn("ada@example.com", password).expect(http.StatusTooManyRequests).
		contains("Too many sign-in attempts. Wait 60 seconds, then try again.")
	laptop.closeBrowser().from("192.0.2.1").signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
	phone.signIn("ada@example.com", password).redirectsTo("/")
	// The laptop's failures were not the account's: of its budget for
	// strangers (3), only the laptop's and the phone's first sign-ins,
	// before either was known, are spent.
	e.browser().from("198.51.100.30").signIn("ada@example.com", password).redirectsTo("/")
	e.browser().from("198.51.100.31").signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
	e.clock.Advance(time.Minute)
	laptop.signIn("ada@example.com", password).redirectsTo("/")
}

// Every sign-in hands out a new device cookie with a budget of its own,
// so the known devices of one account share a budget too: whoever holds
// the password cannot mint cookies to sign in, and take the hashers'
// first place, at will. Another account's devices, and strangers, are
// not held to it.
func TestKnownDevicesOfAnAccountShareABudget(t *testing.T) {
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"))
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	ada := e.browser().from("198.51.100.7")
	ada.signIn("ada@example.com", password).redirectsTo("/") // a stranger's attempt: now known
	for range 10 {
		ada.closeBrowser().signIn("ada@example.com", password).redirectsTo("/")
	}
	ada.closeBrowser().signIn("ada@example.com", password).expect(http.StatusTooManyRequests)
	bob := e.browser().from("198.51.100.7")
	bob.signIn("bob@example.com", password).redirectsTo("/")
	bob.closeBrowser().signIn("bob@example.com", password).redirectsTo("/")
	e.browser().from("198.51.100.8").signIn("ada@example.com", password).redirectsTo("/")
}

// Many strangers at once, guessing the owner's password and posting
// wrong ones for unknown emails from many addresses, keep the one
// password hasher busy and spend the account's budget: the owner's
// browser still signs in, on either database.
func TestKnownDeviceSignsInDuringAFlood(t *testing.T) {
	const strangers = 24
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"),
		withConfig(func(c *models.Config) { c.PasswordHashers = 1; c.PasswordQueueWait = time.Minute }))
	e.owner("ada@example.com")
	owner := e.browser().from("198.51.100.7")
	owner.signIn("ada@example.com", password).redirectsTo("/")
	owner.cookies = map[string]string{deviceCookie: owner.cookies[deviceCookie]}

	form := e.browser()
	form.get("/sign-in")
	var answered atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range strangers {
		wg.Go(func() {
			email := "ada@example.com"
			if i%2 == 1 {
				email = fmt.Sprintf("nobody%d@example.com", i)
			}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				values := url.Values{"email": {email}, "password": {"a guess"}, "csrf_token": {form.csrf}}
				req, err := http.NewRequest(http.MethodPost, "/sign-in", strings.NewReader(values.Encode()))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("X-Real-IP", fmt.Sprintf("203.0.%d.%d", i, n%250+1))
				req.AddCookie(&http.Cookie{Name: "cloudplane_csrf", Value: form.cookies["cloudplane_csrf"]})
				res, err := e.app.Test(req, -1)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusTooManyRequests {
					t.Errorf("a stranger's guess answered %d", res.StatusCode)
				}
				answered.Add(1)
			}
		})
	}
	// The owner comes once the strangers have spent the account's budget.
	// Not Eventually: the strangers are stopped before the count is checked.
	testserver.Within(30*time.Second, func() bool { return answered.Load() >= 2*strangers })
	owner.signIn("ada@example.com", password).redirectsTo("/")
	close(stop)
	wg.Wait()
	if answered.Load() < 2*strangers {
		t.Fatalf("only %d strangers' guesses answered", answered.Load())
	}
}
