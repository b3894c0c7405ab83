package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models/modelstest"
)

func TestChangePassword(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	other := e.signedIn("ada@example.com")
	b.get("/account").expect(http.StatusOK).
		contains("<h1>Account</h1>", "ada@example.com", "Account owner", *ada.AccountID, `autocomplete="new-password"`)

	b.post("/account/password", url.Values{"current_password": {"wrong password"}, "new_password": {"short"}, "new_password_confirm": {"x"}}).
		expect(http.StatusUnprocessableEntity).
		fieldError("new_password", "New password must be at least 10 characters.").
		fieldError("new_password_confirm", "Confirm new password does not match the new password.")
	b.post("/account/password", url.Values{"current_password": {"wrong password"}, "new_password": {"a new password"}, "new_password_confirm": {"a new password"}}).
		expect(http.StatusUnprocessableEntity).
		fieldError("current_password", "Current password is incorrect.").lacks("wrong password")

	e.clock.Advance(time.Second)
	b.post("/account/password", url.Values{"current_password": {password}, "new_password": {"a new password"}, "new_password_confirm": {"a new password"}}).
		redirectsTo("/account")
	b.get("/account").expect(http.StatusOK).contains("Password changed.")
	other.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	e.browser().signIn("ada@example.com", password).expect(http.StatusUnprocessableEntity)
	e.clock.Advance(time.Second)
	e.browser().signIn("ada@example.com", "a new password").redirectsTo("/")
	// Personal events are the platform's (no account's log shows them).
	if ev := modelstest.PersonalEvents(t, e.store, ada.ID, 3); ev[0].Action != "signed_in" || ev[1].ResourceName != "user" || ev[1].Action != "updated" {
		t.Fatalf("events %+v", ev)
	}
}

// A stolen session is no fast way to guess the password: change attempts
// count against the session's own budget (as a known device's sign-ins
// do), before bcrypt runs.
func TestChangePasswordIsThrottled(t *testing.T) {
	e := newEnv(t, withLimits(signInLimits(2, 100, 100)))
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	for _, guess := range []string{"guess one", "guess two"} {
		b.post("/account/password", url.Values{"current_password": {guess}, "new_password": {"a new password"}, "new_password_confirm": {"a new password"}}).
			expect(http.StatusUnprocessableEntity).fieldError("current_password", "Current password is incorrect.")
	}
	res := b.post("/account/password", url.Values{"current_password": {password}, "new_password": {"a new password"}, "new_password_confirm": {"a new password"}}).
		expect(http.StatusTooManyRequests).contains("Too many password attempts. Wait 60 seconds, then try again.")
	if res.Header.Get("Retry-After") == "" {
		t.Fatalf("throttled answer without Retry-After: %v", res.Header)
	}
	// Refused before the check: the right password did not change anything.
	e.clock.Advance(time.Minute)
	e.browser().signIn("ada@example.com", password).redirectsTo("/")
}
