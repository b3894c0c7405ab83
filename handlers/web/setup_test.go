package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

func TestSetupLinkWorksOnce(t *testing.T) {
	e := newEnv(t)
	token, err := e.store.StartSetup(context.Background())
	if err != nil || token == "" {
		t.Fatalf("start setup: %q %v", token, err)
	}
	b := e.browser()
	b.get("/setup/not-the-token").expect(http.StatusNotFound).contains("This setup link is invalid or has already been used")
	b.get("/setup/"+token).expect(http.StatusOK).contains("Welcome to cloudplane", `action="/setup/`+token+`"`)

	b.post("/setup/"+token, url.Values{"email": {"ada"}, "password": {"short"}, "password_confirm": {"other"}}).
		expect(http.StatusUnprocessableEntity).
		fieldError("email", "Email must be a valid email address.").
		fieldError("password", "Password must be at least 10 characters.").
		fieldError("password_confirm", "Confirm password does not match the password.").
		contains(`value="ada"`)

	b.post("/setup/"+token, url.Values{"email": {"ada@example.com"}, "password": {password}, "password_confirm": {password}}).
		redirectsTo("/")
	b.get("/").expect(http.StatusOK).contains("Your account is ready.", "ada@example.com", "<h1>Overview</h1>")
	b.get("/").lacks("Your account is ready.") // a flash is shown once

	again := e.browser()
	again.get("/setup/" + token).expect(http.StatusNotFound)
	again.get("/sign-in")
	again.post("/setup/"+token, url.Values{"email": {"eve@example.com"}, "password": {password}, "password_confirm": {password}}).
		expect(http.StatusNotFound)
	if n, _ := e.store.UserCount(context.Background()); n != 1 {
		t.Fatalf("%d users after a second use of the link", n)
	}
}

// Posting to a setup link costs a visitor without the token one query: it
// is turned away before the password is hashed (a store whose bcrypt cost
// is out of range fails any hash), and input is checked before hashing too.
func TestSetupChecksTheTokenBeforeHashing(t *testing.T) {
	e := newEnv(t, withConfig(func(c *models.Config) { c.PasswordCost = 100 }))
	token, err := e.store.StartSetup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.get("/sign-in")
	valid := url.Values{"email": {"eve@example.com"}, "password": {password}, "password_confirm": {password}}
	for _, wrong := range []string{"x", strings.Repeat("0", 64), token + "0"} {
		b.post("/setup/"+wrong, valid).expect(http.StatusNotFound).contains("This setup link is invalid")
	}
	b.post("/setup/"+token, url.Values{"email": {"eve"}, "password": {password}, "password_confirm": {password}}).
		expect(http.StatusUnprocessableEntity).fieldError("email", "Email must be a valid email address.")
}

// Setup attempts with the right link are throttled like sign-ins, and
// the form comes back as typed.
func TestSetupIsThrottled(t *testing.T) {
	e := newEnv(t, withLimits(signInLimits(1, 100, 100)))
	token, err := e.store.StartSetup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.get("/setup/" + token)
	b.post("/setup/"+token, url.Values{"email": {"ada@example.com"}, "password": {"short"}, "password_confirm": {"short"}}).
		expect(http.StatusUnprocessableEntity)
	b.post("/setup/"+token, url.Values{"email": {"ada@example.com"}, "password": {password}, "password_confirm": {password}}).
		expect(http.StatusTooManyRequests).contains("Too many password attempts.", `value="ada@example.com"`)
	if n, _ := e.store.UserCount(context.Background()); n != 0 {
		t.Fatalf("%d users after a throttled setup", n)
	}
	e.clock.Advance(time.Minute)
	b.post("/setup/"+token, url.Values{"email": {"ada@example.com"}, "password": {password}, "password_confirm": {password}}).
		redirectsTo("/")
}
