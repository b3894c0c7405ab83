package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// In Chromium: TOTP set up from the account page (the QR code is a PNG
// the server drew, which the CSP lets the page show), the recovery codes
// shown once, then a sign-in that asks for a code after the password and
// keeps the path asked for.
func TestTwoFactorEnrolAndSignIn(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)

	b.Open("/account")
	b.Press("#two-factor", "^Set up two-factor authentication$")
	b.WaitJS("the QR code to load", `(img => !!img && img.complete && img.naturalWidth > 0)(document.querySelector("#two-factor img"))`)
	secret := strings.TrimSpace(b.Text("#two-factor code.secret"))
	b.Shot("two-factor setup")
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b.Fill("#two-factor", "^Code$", code)
	b.Press("#two-factor", "^Turn on$")
	b.WaitText("#two-factor", "Save these recovery codes now")
	if n := len(b.FindAll("#two-factor", "ul.recovery-codes li", "")); n != 10 {
		b.Fail("%d recovery codes shown, want 10", n)
	}
	b.Shot("recovery codes")
	b.Open("/account")
	b.WaitText("#two-factor", "is on")
	if b.Has("#two-factor", "ul.recovery-codes", "") {
		b.Fail("the recovery codes are shown again")
	}

	b.Press("#site-header", "^Sign out$")
	b.WaitText("main", "You have signed out")
	b.Open("/api-keys")
	b.WaitJS("the sign-in page", `location.pathname === "/sign-in"`)
	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Sign in$")
	b.WaitJS("the second step", `location.pathname === "/sign-in/second-factor"`)
	b.Shot("second factor")
	// The code of the enrolment's step is used; the next step's is
	// accepted (one step ahead is inside the window).
	next, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	b.Fill("main", "^Code$", next)
	b.Press("main", "^Verify and sign in$")
	b.WaitText("#site-header", regexp.QuoteMeta(o.email))
	b.WaitJS("the page asked for before signing in", `location.pathname === "/api-keys"`)
}
