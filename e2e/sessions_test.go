package e2e

import "testing"

// An owner signed in from two browsers sees both sessions on the account
// page, this one marked, and signs the other out: that browser is sent
// to sign in again.
func TestSignOutAnotherSession(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	here, there := s.newTab(t), s.newTab(t)
	here.signIn(o)
	there.signIn(o)

	here.Open("/account#sessions")
	here.WaitText("#sessions", "This session")
	here.WaitJS("two sessions listed", `document.querySelectorAll("#sessions tbody tr").length === 2`)
	here.Shot("two sessions")
	here.Press("#sessions table", "^Sign out")
	here.WaitText("#flash", "That session was signed out")
	here.WaitJS("one session left", `document.querySelectorAll("#sessions tbody tr").length === 1`)
	here.Shot("other session signed out")

	there.Open("/account")
	there.WaitJS("the sign-in page", `location.pathname === "/sign-in"`)
	there.Shot("signed out elsewhere")
}
