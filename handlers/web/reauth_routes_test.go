package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"cloudplane/models"
)

// After the window, the forms that show or redirect webhook secrets,
// switch the second-factor requirement, grant roles or change an account
// for support send the browser to confirm who it is first, and change
// nothing; after confirming they go through.
func TestSecretsAndPowersAskAgainAfterTheWindow(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	bob := e.member(ada, "bob@example.com", models.RoleViewer)
	ep := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	e.stale()
	hook := "/webhook/" + ep.ID
	for _, tc := range []struct {
		path, page string
		form       url.Values
	}{
		{"/webhook", "/webhook", url.Values{"url": {"https://attacker.example.com/"}}},
		{hook, hook, url.Values{"url": {"https://attacker.example.com/"}}},
		{hook + "/rotate-token", hook + "/rotate-token", nil},
		{hook + "/rotate-secret", hook + "/rotate-secret", nil},
		{"/account/two-factor/require", "/account#two-factor", url.Values{"require": {"on"}}},
		{"/members/" + bob.ID + "/role", "/members", url.Values{"role": {models.RoleOwner}}},
		{"/members/invitations", "/members", url.Values{"email": {"eve@example.com"}, "role": {models.RoleOwner}}},
	} {
		b.post(tc.path, tc.form).redirectsTo(confirmAt(tc.page))
	}
	got, err := e.store.WebhookEndpoint(t.Context(), ada.Actor(), ep.ID)
	if err != nil || got.URL != "https://hooks.example.com/" || got.Token != ep.Token || got.Secret != ep.Secret {
		t.Fatalf("endpoint changed without confirming: %+v, %v", got, err)
	}
	b.post("/confirm-identity", url.Values{"next": {hook}, "password": {password}}).redirectsTo(hook)
	b.post(hook+"/rotate-token", nil).expect(http.StatusOK)

	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	e.stale()
	page := "/accounts/" + *ada.AccountID
	s.post(page, url.Values{"name": {"Changed"}}).redirectsTo(confirmAt(page))
}
