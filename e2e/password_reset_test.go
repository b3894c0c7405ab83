package e2e

import (
	"regexp"
	"testing"
	"time"
)

// "Forgot your password?" in Chromium, on a server without SMTP: from
// the sign-in page to the form, the same answer page, the link the server
// wrote to its log, a new password that signs in, and the earlier
// session, in another tab, signed out.
func TestForgotPasswordInBrowser(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	before := s.newTab(t)
	before.signIn(o)

	b := s.newTab(t)
	b.Open("/sign-in")
	b.Press("main", "^Forgot your password\\?$")
	b.WaitText("main", "Enter the email you sign in with")
	b.Fill("main", "^Email$", o.email)
	b.Press("main", "^Send reset link$")
	b.WaitText("main", "If an account uses that address")
	b.Shot("reset requested")

	m, err := s.srv.FindLog(regexp.MustCompile(regexp.QuoteMeta(o.email)+`.*?(/reset-password/[0-9a-f]{64})`), 20*time.Second)
	if err != nil {
		t.Fatalf("no reset link for %s in the server's log: %v", o.email, err)
	}
	b.Open(m[1])
	b.WaitText("main", "Choose a new password")
	const newPassword = "a browser-chosen passphrase"
	b.Fill("main", "^New password$", newPassword)
	b.Fill("main", "^Confirm password$", newPassword)
	b.Press("main", "^Set password and sign in$")
	b.WaitText("#flash, main", "Your password has been changed")
	b.Shot("password changed")

	before.Open("/account")
	before.WaitText("main", "Your session has ended")
	after := s.newTab(t)
	after.signIn(owner{email: o.email, password: newPassword})
}
