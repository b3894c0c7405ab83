package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"cloudplane/e2e/browser"
)

// signIn signs o in through the form and waits for the overview.
func (b *tab) signIn(o owner) {
	b.T.Helper()
	b.Open("/sign-in")
	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Sign in$")
	signedIn := fmt.Sprintf("textMatches(%s, %s)", browser.JS("#site-header"), browser.JS(regexp.QuoteMeta(o.email)))
	b.WaitJS("the header to name "+o.email,
		signedIn+` || textMatches("main [role=alert]", "too many sign-in attempts")`)
	var ok bool
	if err := b.EvalJS(signedIn, &ok); err != nil || !ok {
		b.Fail("signing in as %s was refused: %s (all sign-ins come from 127.0.0.1, "+
			"which may try 20 times a minute)", o.email, b.Text("main [role=alert]"))
	}
	b.Ready()
}

// confirmRowAction clicks the action named by action in the row showing
// rowText, checks that the confirm dialog it opens matches title, and
// confirms with the dialog's button named by confirm, waiting for the
// flash that matches flash.
func (b *tab) confirmRowAction(rowText, action, title, confirm, flash string) {
	b.T.Helper()
	b.Press(b.RowWith(rowText), action)
	b.WaitText("dialog[open]", title)
	b.Shot("confirm dialog")
	b.Press("dialog[open]", confirm)
	b.WaitText("#flash", flash)
}

// A key generated in the dashboard works against the API at once, its
// secret is shown only once, and revoking it (after a confirmation)
// makes the API refuse it.
func TestAPIKeyLifecycle(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.Shot("overview")

	b.NavTo("^API keys$")
	b.WaitText("main", "No API keys yet")
	b.Shot("api keys empty")

	b.Fill("main", "^Name$", "e2e laptop")
	b.Press("main", "^Generate key$")
	secret := strings.TrimSpace(b.Text("#new-key-secret"))
	if !strings.HasPrefix(secret, "cpk_") {
		b.Fail("the new key's secret %q does not start with cpk_", secret)
	}
	b.RowWith("e2e laptop")
	b.Shot("api key generated")

	var regions []struct{ Name string }
	s.api(t, secret, http.MethodGet, "/regions", nil).ok(t, http.StatusOK, &regions)
	if len(regions) == 0 {
		t.Error("GET /regions with the new key listed no regions")
	}
	s.api(t, secret, http.MethodGet, "/filesystems", nil).ok(t, http.StatusOK, nil)

	// The list says the key was used (recorded off the request path, so
	// it may take a moment), and the secret is not shown again.
	b.ReloadUntil("the key's last use is shown",
		`(row => !!row && !/Never/.test(document.querySelector(row).querySelector('[data-label="Last used"]').innerText))(rowWith("e2e laptop"))`)
	if b.Has("", "#new-key-secret", "") {
		b.Fail("the secret is shown again after a reload")
	}
	b.Shot("api key used")

	b.confirmRowAction("e2e laptop", "^Revoke", "Revoke “e2e laptop”", "^Revoke key$", "e2e laptop.* revoked")
	b.WaitText("main", "No API keys yet")
	b.Shot("api key revoked")

	c := s.api(t, secret, http.MethodGet, "/filesystems", nil)
	if c.status != http.StatusUnauthorized || c.errorCode() != "global/invalid-api-key" {
		t.Errorf("the revoked key got %d %s, want 401 global/invalid-api-key: %s", c.status, c.errorCode(), c.body)
	}
}
