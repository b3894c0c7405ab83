package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// ageSessions moves every session's last proof of identity past the
// re-authentication window, as 10 minutes of waiting would.
func ageSessions(t *testing.T, db string) {
	t.Helper()
	store := modelstest.OpenAt(t, db)
	if err := store.DB().Exec("UPDATE sessions SET authenticated_at = ?",
		time.Now().Add(-models.ReauthWindow-time.Minute)).Error; err != nil {
		t.Fatal(err)
	}
}

// A stale session pressing "Add a passkey" is sent to "Confirm it's
// you" (passkeys.js follows the server's redirect), confirms with its
// password and adds the passkey; stale again, it confirms with that
// passkey and removes it.
func TestConfirmIdentityInTheBrowser(t *testing.T) {
	s := need(t)
	base, o, db := s.passkeyServerDB(t)
	b := &tab{Tab: browser.NewTab(t, s.browser, base, s.shots), s: s}
	if _, err := chromedp.Call(b.Ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		b.Fail("enable WebAuthn in the tab: %v", err)
	}
	b.virtualAuthenticator()

	b.signIn(o)
	ageSessions(t, db)
	b.Open("/account")
	b.Fill("#passkeys", "^Name", "Virtual key")
	b.Press("#passkeys", "^Add a passkey$")
	b.WaitText("main", "Confirm it's you")
	b.Shot("asked to confirm before adding a passkey")
	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Confirm$")
	b.WaitText("#passkeys", "No passkeys yet")
	b.Fill("#passkeys", "^Name", "Virtual key")
	b.Press("#passkeys", "^Add a passkey$")
	b.WaitText("#flash", "Passkey “Virtual key” added")

	ageSessions(t, db)
	b.Open("/account")
	b.Press("#passkeys", "^Remove Virtual key$")
	b.WaitText("main", "Confirm with a passkey")
	b.Shot("confirm with a passkey")
	b.Press("main", "^Confirm with a passkey$")
	b.WaitText("#passkeys", "Virtual key")
	b.Press("#passkeys", "^Remove Virtual key$")
	b.WaitText("#flash", "Passkey “Virtual key” removed")
}
