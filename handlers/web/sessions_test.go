package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

const (
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	chromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
)

// signedInWith returns a browser with that User-Agent signed in as email.
func (e *env) signedInWith(email, ua string) *browser {
	e.t.Helper()
	b := e.browser()
	b.header.Set("User-Agent", ua)
	b.signIn(email, password).expect(http.StatusSeeOther)
	b.get("/").expect(http.StatusOK)
	return b
}

var otherSessionForm = regexp.MustCompile(`action="/account/sessions/([0-9a-z]+)/sign-out"`)

// The Sessions section lists this browser's session, marked, and another
// browser's, named from their User-Agents; signing the other out signs
// that browser out, and "Sign out all other sessions" the rest, each
// audited. Another user's session id is not found and that user stays
// signed in.
func TestSessionsSectionSignsOutOtherBrowsers(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	here := e.signedInWith("ada@example.com", firefoxLinux)
	e.clock.Advance(time.Minute)
	there := e.signedInWith("ada@example.com", chromeWindows)
	e.clock.Advance(time.Minute)
	third := e.signedInWith("ada@example.com", chromeWindows)
	bob := e.signedInWith("bob@example.com", firefoxLinux)

	res := here.get("/account").expect(http.StatusOK).contains(`id="sessions"`, "Firefox on Linux", "Chrome on Windows",
		"This session", "Sign out all other sessions").lacks("Gecko/20100101")
	forms := otherSessionForm.FindAllStringSubmatch(res.Body, -1)
	if len(forms) != 2 {
		t.Fatalf("%d sign-out forms, want one per other session:\n%s", len(forms), res.Body)
	}
	// The newest activity first: the third browser's session.
	if i, j := strings.Index(res.Body, forms[0][0]), strings.Index(res.Body, forms[1][0]); i > j {
		t.Fatal("forms out of order")
	}

	bobSessions, err := e.store.Sessions(context.Background(), sessionActor(t, e, bob))
	if err != nil || len(bobSessions) != 1 {
		t.Fatalf("bob's sessions %v %v", bobSessions, err)
	}
	here.post("/account/sessions/"+bobSessions[0].ID+"/sign-out", nil).expect(http.StatusNotFound)
	bob.get("/").expect(http.StatusOK)

	here.post("/account/sessions/"+forms[1][1]+"/sign-out", nil).redirectsTo("/account#sessions")
	there.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	third.get("/").expect(http.StatusOK)
	here.get("/account").contains("That session was signed out.")
	here.get("/account/sessions/sign-out-others").redirectsTo("/account#sessions")

	here.post("/account/sessions/sign-out-others", nil).redirectsTo("/account#sessions")
	third.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	here.get("/account").expect(http.StatusOK).contains("One other session was signed out.").lacks("Sign out all other sessions")
	bob.get("/").expect(http.StatusOK)
}

// sessionActor is the actor of the browser's session.
func sessionActor(t *testing.T, e *env, b *browser) models.Actor {
	t.Helper()
	sess, _, err := e.store.SessionByToken(context.Background(), b.cookies["cloudplane_session"])
	if err != nil {
		t.Fatal(err)
	}
	return sess.Acting
}

// An owner ends every session of a member from the Members page; a
// member cannot end the owner's.
func TestOwnerEndsAMembersSessionsFromMembers(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	bobUser := e.member(ada, "bob@example.com", models.RoleMember)
	owner := e.signedIn("ada@example.com")
	bob := e.signedIn("bob@example.com")
	bob.switchTo(*ada.AccountID)

	bob.post("/members/"+ada.ID+"/end-sessions", nil).expect(http.StatusForbidden)
	owner.get("/").expect(http.StatusOK)

	owner.get("/members").expect(http.StatusOK).contains(`action="/members/` + bobUser.ID + `/end-sessions"`)
	owner.post("/members/"+bobUser.ID+"/end-sessions", nil).redirectsTo("/members")
	bob.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	owner.get("/members").contains("Every session of that member was ended (1)")
	owner.get("/audit-events").contains("Sessions of member <a href=\"/members\">bob@example.com</a> ended")
}

// Outside the 10-minute window, revealing a signing secret sends the
// browser to "Confirm it's you"; a wrong password there is refused and
// counted (the session's budget runs out), the right one returns to the
// page, where the secret is shown. A post of the form from an expired
// window leads back to its page with a note that it was not kept.
func TestRevealingASecretAsksAgainAfterTheWindow(t *testing.T) {
	e := newEnv(t, deviceLimits())
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	secret := "/webhook/" + ep.ID + "/secret"
	confirm := "/confirm-identity?next=" + url.QueryEscape(secret)
	b.get(secret).expect(http.StatusOK).contains("Show secret")

	e.clock.Advance(models.ReauthWindow + time.Second)
	b.get(secret).redirectsTo(confirm)
	b.post(secret, nil).redirectsTo(confirm + "&form=1")
	b.get(confirm+"&form=1").expect(http.StatusOK).contains("Confirm it&#39;s you", `name="password"`,
		"was not kept").lacks(ep.Secret)
	b.htmx = true
	b.post(secret, nil).redirectsTo(confirm + "&form=1")
	b.htmx = false

	b.post("/confirm-identity", url.Values{"next": {secret}, "password": {"wrong password"}}).
		expect(http.StatusUnprocessableEntity).fieldError("password", "Password is incorrect.")
	b.get(secret).redirectsTo(confirm)
	b.post("/confirm-identity", url.Values{"next": {"https://evil.example/"}, "password": {password}}).redirectsTo("/")
	e.clock.Advance(models.ReauthWindow + time.Second)
	b.post("/confirm-identity", url.Values{"next": {secret}, "password": {password}}).redirectsTo(secret)
	b.post(secret, nil).expect(http.StatusOK).contains(ep.Secret)

	e.clock.Advance(models.ReauthWindow + time.Second)
	throttled := false
	for range 10 {
		res := b.post("/confirm-identity", url.Values{"next": {secret}, "password": {"a guess"}})
		if res.Status == http.StatusTooManyRequests {
			throttled = true
			break
		}
		res.expect(http.StatusUnprocessableEntity)
	}
	if !throttled {
		t.Fatal("10 wrong passwords on the confirm page were all checked")
	}
}

// A full-access API key needs a recent proof; a read-only one does not.
// Changing the password is itself a proof: the window opens again.
func TestFullAccessKeyAsksAgainAfterTheWindow(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(models.ReauthWindow + time.Second)
	b.post("/api-keys", url.Values{"name": {"CI"}}).redirectsTo("/confirm-identity?next=%2Fapi-keys&form=1")
	b.post("/api-keys", url.Values{"name": {"dash"}, "scope": {"read_only"}}).expect(http.StatusCreated)
	newPassword := "a much newer password 123"
	b.post("/account/password", url.Values{"current_password": {password},
		"new_password": {newPassword}, "new_password_confirm": {newPassword}}).expect(http.StatusSeeOther)
	b.post("/api-keys", url.Values{"name": {"CI"}}).expect(http.StatusCreated)
}

// A sign-in from a browser without this login's device cookie queues the
// new sign-in mail; the same browser signing in again (it has the
// cookie now) does not, nor does the user's first sign-in ever.
func TestNewBrowserSignInIsMailedOnce(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	count := func() int64 {
		var n int64
		e.store.DB().Model(&models.MailMessage{}).Where("kind = ?", models.MailNewSignIn).Count(&n)
		return n
	}
	first := e.signedInWith("ada@example.com", firefoxLinux)
	if n := count(); n != 0 {
		t.Fatalf("first sign-in ever mailed %d", n)
	}
	e.clock.Advance(time.Minute)
	first.post("/sign-out", nil)
	first.signIn("ada@example.com", password).expect(http.StatusSeeOther)
	if n := count(); n != 0 {
		t.Fatalf("a known browser mailed %d", n)
	}
	e.clock.Advance(time.Minute)
	e.signedInWith("ada@example.com", chromeWindows)
	if n := count(); n != 1 {
		t.Fatalf("a new browser mailed %d, want 1", n)
	}
}

// A form on the account page posted by htmx is sent back to a section of
// the same page: only the fragment differs, which a browser would scroll
// to without loading, so htmx is told to reload. From another page it
// is a plain redirect.
func TestRedirectToASectionOfTheSamePageReloads(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/account").expect(http.StatusOK)
	b.htmx = true
	b.header.Set("HX-Current-URL", "http://example.com/account")
	b.post("/account/sessions/sign-out-others", nil).redirectsTo("/account#sessions").hasHeader("HX-Refresh", "true")
	b.header.Set("HX-Current-URL", "http://example.com/members")
	res := b.post("/account/sessions/sign-out-others", nil).redirectsTo("/account#sessions")
	if res.Header.Get("HX-Refresh") != "" {
		t.Fatal("a redirect to another page reloads the current one")
	}
}
