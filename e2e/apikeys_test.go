package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// signIn signs o in through the form and waits for the overview.
func (b *tab) signIn(o owner) {
	b.t.Helper()
	b.open("/sign-in")
	b.fill("main", "^Email$", o.email)
	b.fill("main", "^Password$", o.password)
	b.press("main", "^Sign in$")
	signedIn := fmt.Sprintf("textMatches(%s, %s)", js("#site-header"), js(regexp.QuoteMeta(o.email)))
	b.waitJS("the header to name "+o.email,
		signedIn+` || textMatches("main [role=alert]", "too many sign-in attempts")`)
	var ok bool
	if err := b.evalJS(signedIn, &ok); err != nil || !ok {
		b.fail("signing in as %s was refused: %s (all sign-ins come from 127.0.0.1, "+
			"which may try 20 times a minute)", o.email, b.text("main [role=alert]"))
	}
	b.ready()
}

// confirmRowAction clicks the action named by action in the row showing
// rowText, checks that the confirm dialog it opens matches title, and
// confirms with the dialog's button named by confirm, waiting for the
// flash that matches flash.
func (b *tab) confirmRowAction(rowText, action, title, confirm, flash string) {
	b.t.Helper()
	b.press(b.rowWith(rowText), action)
	b.waitText("dialog[open]", title)
	b.shot("confirm dialog")
	b.press("dialog[open]", confirm)
	b.waitText("#flash", flash)
}

// A key generated in the dashboard works against the API at once, its
// secret is shown only once, and revoking it (after a confirmation)
// makes the API refuse it.
func TestAPIKeyLifecycle(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.shot("overview")

	b.navTo("^API keys$")
	b.waitText("main", "No API keys yet")
	b.shot("api keys empty")

	b.fill("main", "^Name$", "e2e laptop")
	b.press("main", "^Generate key$")
	secret := strings.TrimSpace(b.text("#new-key-secret"))
	if !strings.HasPrefix(secret, "cpk_") {
		b.fail("the new key's secret %q does not start with cpk_", secret)
	}
	b.rowWith("e2e laptop")
	b.shot("api key generated")

	var regions []struct{ Name string }
	s.api(t, secret, http.MethodGet, "/regions", nil).ok(t, http.StatusOK, &regions)
	if len(regions) == 0 {
		t.Error("GET /regions with the new key listed no regions")
	}
	s.api(t, secret, http.MethodGet, "/filesystems", nil).ok(t, http.StatusOK, nil)

	// The list says the key was used (recorded off the request path, so
	// it may take a moment), and the secret is not shown again.
	b.reloadUntil("the key's last use is shown",
		`(row => !!row && !/Never/.test(document.querySelector(row).querySelector('[data-label="Last used"]').innerText))(rowWith("e2e laptop"))`)
	if b.has("", "#new-key-secret", "") {
		b.fail("the secret is shown again after a reload")
	}
	b.shot("api key used")

	b.confirmRowAction("e2e laptop", "^Revoke", "Revoke “e2e laptop”", "^Revoke key$", "e2e laptop.* revoked")
	b.waitText("main", "No API keys yet")
	b.shot("api key revoked")

	c := s.api(t, secret, http.MethodGet, "/filesystems", nil)
	if c.status != http.StatusUnauthorized || c.errorCode() != "global/invalid-api-key" {
		t.Errorf("the revoked key got %d %s, want 401 global/invalid-api-key: %s", c.status, c.errorCode(), c.body)
	}
}
