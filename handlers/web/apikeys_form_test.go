package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// The expiry date is only for "On a date": script hides it otherwise
// (data-shown-for), and without script a date sent with another expiry,
// "Never" above all, is ignored: the key never expires.
func TestAPIKeyExpiryDateOnlyForADate(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/api-keys").expect(http.StatusOK).
		contains(`<div class="aligned-field" data-shown-for="expires=date"><div class="field"><label for="field-expires_on">Expiry date</label>`)
	past := e.clock.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	b.post("/api-keys", url.Values{"name": {"never ends"}, "scope": {"read_only"}, "expires": {"never"}, "expires_on": {past}}).
		expect(http.StatusCreated).lacks(`id="field-expires_on-error"`)
	keys, err := e.store.MemberAPIKeys(context.Background(), ada.Actor())
	if err != nil || len(keys) != 1 || keys[0].Name != "never ends" || keys[0].ExpiresAt != nil {
		t.Fatalf("keys %+v %v, want one that never expires", keys, err)
	}
}

// "Try it" sets the new secret in the shell before using it, and both
// the secret and the commands have a Copy button (shown by script).
func TestAPIKeyTryItExportsTheKey(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	res := b.post("/api-keys", url.Values{"name": {"CI"}, "scope": {"read_only"}}).expect(http.StatusCreated)
	secret := secretInPage.FindStringSubmatch(res.Body)[1]
	res.contains(`<code id="new-key-try">export CLOUDPLANE_API_KEY=`+secret+"\n"+
		`curl -H &#34;Authorization: Bearer $CLOUDPLANE_API_KEY&#34; http://example.com/api/v1/instances</code>`,
		`data-copy="new-key-secret"`, `data-copy="new-key-try"`, `id="new-key-try-status"`)
}
