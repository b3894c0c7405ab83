package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// An owner invites a new person as a viewer from the Members page in
// Chromium; the suite's server has no --smtp-url, so the link is shown
// once on the page (and the mail is written to the log). The new person
// opens it in another browser, chooses a password, lands signed in on
// the owner's account as a viewer, whose pages offer no writes; the link
// then answers that it was accepted.
func TestInvitationInBrowser(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("Members")
	b.WaitText("main", "Invite someone")
	invited := strings.Replace(o.email, "@", "-invited@", 1)
	b.Fill("main", "^Email$", invited)
	b.Choose("main", "^Role$", "^viewer$")
	b.Press("main", "^Send invitation$")
	b.WaitText("main", "Invitation link for")
	b.Shot("invitation created")
	link := regexp.MustCompile(`/invitations/[0-9a-f]{96}`).FindString(b.Text("#invitation-link"))
	if link == "" {
		t.Fatalf("no invitation link on the page: %q", b.Text("main"))
	}

	n := s.newTab(t)
	n.Open(link)
	n.WaitText("main", "Choose a password for "+regexp.QuoteMeta(invited))
	const chosen = "a password chosen in the browser"
	n.Fill("main", "^Password$", chosen)
	n.Fill("main", "^Confirm password$", chosen)
	n.Press("main", "^Create user and join$")
	n.WaitText("#flash, main", "You joined the account of "+regexp.QuoteMeta(o.email)+" as a viewer")
	n.Shot("joined as a viewer")
	n.WaitText("#site-header", regexp.QuoteMeta(invited))
	n.NavTo("Members")
	n.WaitText("main", regexp.QuoteMeta(o.email))
	if n.Has("main", "button", "^Send invitation$") {
		t.Fatal("a viewer sees the invite form")
	}

	again := s.newTab(t)
	again.Open(link)
	again.WaitText("main", "already been accepted")
	again.signIn(owner{email: invited, password: chosen})
}
