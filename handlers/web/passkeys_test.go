package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

var webRP = models.RelyingParty{ID: "console.example.com", Origin: "https://console.example.com"}

func withPasskeys() envOption {
	return func(s *envSetup) { s.app.RelyingParty = webRP }
}

// addPasskey adds a software authenticator's passkey through the account
// page's endpoints, as passkeys.js does.
func (b *browser) addPasskey(name string) *modelstest.Authenticator {
	b.e.t.Helper()
	options := b.post("/account/passkeys/options", nil).expect(http.StatusOK)
	auth := modelstest.NewAuthenticator(b.e.t, webRP.Origin)
	b.post("/account/passkeys", url.Values{"name": {name}, "credential": {string(auth.Register(b.e.t, []byte(options.Body)))}}).
		redirectsTo("/account#passkeys")
	return auth
}

// passkeySignIn signs in with the authenticator's passkey from the sign-in page.
func (b *browser) passkeySignIn(auth *modelstest.Authenticator) *page {
	b.e.t.Helper()
	b.get("/sign-in").expect(http.StatusOK).contains("Sign in with a passkey")
	options := b.post("/sign-in/passkey/options", nil).expect(http.StatusOK)
	return b.post("/sign-in/passkey", url.Values{"credential": {string(auth.Assert(b.e.t, []byte(options.Body)))}})
}

// A passkey added on the account page signs its user in alone (method
// "passkey"); a copy whose counter went back is refused on the page.
func TestPasskeyAddSignInAndClone(t *testing.T) {
	e := newEnv(t, withPasskeys())
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	auth := b.addPasskey("Work laptop")
	b.get("/account").expect(http.StatusOK).contains(`id="passkeys"`, "Work laptop", "Never")
	b.post("/sign-out", nil)

	b.passkeySignIn(auth).redirectsTo("/")
	b.get("/account").expect(http.StatusOK).contains("ada@example.com")
	var sess models.Session
	if err := e.store.DB().Where("user_id = ?", ada.ID).Order("created_at DESC").Take(&sess).Error; err != nil || sess.AuthMethod != models.MethodPasskey {
		t.Fatalf("session method %q (%v)", sess.AuthMethod, err)
	}
	b.post("/sign-out", nil)

	clone := *auth
	clone.Counter = 0 // the genuine authenticator has signed once
	b.passkeySignIn(&clone).expect(http.StatusForbidden).contains("signature counter went back")
	b.get("/account").redirectsTo("/sign-in?next=%2Faccount")
}

// A passkey is removed by its owner only: another user's id is not found
// and the passkey stays.
func TestPasskeyRemoveIsOwnersOnly(t *testing.T) {
	e := newEnv(t, withPasskeys())
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	ada := e.signedIn("ada@example.com")
	ada.addPasskey("Phone")
	var p models.Passkey
	if err := e.store.DB().Take(&p).Error; err != nil {
		t.Fatal(err)
	}
	bob := e.signedIn("bob@example.com")
	bob.post("/account/passkeys/"+p.ID+"/delete", nil).expect(http.StatusNotFound)
	ada.get("/account").contains("Phone")
	ada.post("/account/passkeys/"+p.ID+"/delete", nil).redirectsTo("/account#passkeys")
	ada.get("/account").contains("Passkey “Phone” removed.").lacks(`id="passkey-` + p.ID + `"`)
}

// A form posted without the browser's answer (no script, or a ceremony
// that expired) is refused in place, and the name is checked first.
func TestPasskeyAddRefusals(t *testing.T) {
	e := newEnv(t, withPasskeys())
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/account/passkeys", url.Values{"name": {""}}).expect(http.StatusUnprocessableEntity).fieldError("name", "Name is required.")
	b.post("/account/passkeys", url.Values{"name": {"Key"}, "credential": {"{}"}}).
		expect(http.StatusForbidden).contains("expired or was already used")
}

// Asking for passkey sign-in options counts against the address's
// sign-in budget: no one fills the database with ceremonies.
func TestPasskeySignInOptionsAreThrottled(t *testing.T) {
	e := newEnv(t, withPasskeys(), withLimits(signInLimits(100, 100, 2)))
	b := e.browser()
	b.get("/sign-in").expect(http.StatusOK)
	b.post("/sign-in/passkey/options", nil).expect(http.StatusOK)
	b.post("/sign-in/passkey/options", nil).expect(http.StatusOK)
	b.post("/sign-in/passkey/options", nil).expect(http.StatusTooManyRequests)
	var n int64
	e.store.DB().Model(&models.PasskeyCeremony{}).Count(&n)
	if n != 2 {
		t.Fatalf("%d ceremonies stored, want 2", n)
	}
	e.clock.Advance(time.Minute)
	b.post("/sign-in/passkey/options", nil).expect(http.StatusOK)
}
