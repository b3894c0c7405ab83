package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Strangers who spent the account's password budget from many addresses
// do not lock its signed-in owner out of the forms that check her
// password again (confirming it's her, changing the password):
// those count against her session's own budget. A session guessing the
// password is stopped by that budget all the same.
func TestStrangersDoNotBlockASignedInPasswordCheck(t *testing.T) {
	e := newEnv(t, deviceLimits(), withTrustedProxies("0.0.0.0"))
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	owner := e.browser().from("198.51.100.7")
	owner.signIn("ada@example.com", password).redirectsTo("/")
	drainAccount(e, "ada@example.com")

	secret := "/webhook/" + ep.ID + "/secret"
	confirm := "/confirm-identity?next=" + url.QueryEscape(secret)
	e.clock.Advance(11 * time.Minute)
	owner.get(secret).redirectsTo(confirm)
	owner.get(confirm).expect(http.StatusOK)
	owner.post("/confirm-identity", url.Values{"next": {secret}, "password": {password}}).redirectsTo(secret)
	owner.post(secret, nil).expect(http.StatusOK).contains(ep.Secret)
	newPassword := "a much newer password 123"
	owner.post("/account/password", url.Values{"current_password": {password},
		"new_password": {newPassword}, "new_password_confirm": {newPassword}}).expect(http.StatusSeeOther)

	// The same session guessing: its budget (5 a minute here) runs out.
	refused := false
	for range 10 {
		res := owner.post("/confirm-identity", url.Values{"next": {secret}, "password": {"a guess"}})
		if res.Status == http.StatusTooManyRequests {
			refused = true
			break
		}
		res.expect(http.StatusUnprocessableEntity)
	}
	if !refused {
		t.Fatal("10 wrong passwords from one session were all checked")
	}
}
