package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"cloudplane/handlers"
	"cloudplane/models"
)

// withMailLinksOnPage is a server without --smtp-url: the inviting owner
// sees the link once.
func withMailLinksOnPage(s *envSetup) { s.app.MailLinksOnPage = true }

// invitationLink finds the invitation link in the n-th mail to `to`.
var invitationPath = regexp.MustCompile(`/invitations/[0-9a-f]{96}`)

// The whole invitation through a real SMTP server: an owner invites from
// the Members page; the mail names the inviter, account and role, says
// why it came and that ignoring it is fine; a new person opens the link,
// chooses a password, and is signed in on the account as a viewer who
// cannot write; the link then answers 410.
func TestInvitationFlowNewPerson(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	ada := e.signedIn("ada@example.com")
	ada.get("/members").expect(http.StatusOK).contains("Invite someone", "No pending invitations.")
	ada.post("/members/invitations", url.Values{"email": {"Newbie@Example.com"}, "role": {"viewer"}}).
		redirectsTo("/members")
	ada.get("/members").expect(http.StatusOK).contains("Invitation sent to newbie@example.com.",
		"newbie@example.com", "Viewer (read-only)", "Resend", "Revoke").lacks("Copy it now")

	m, _ := mailTo(t, srv, "newbie@example.com", 1, "/none/")
	body := strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(m.Data)
	for _, want := range []string{"ada@example.com invited newbie@example.com", "as viewer",
		"You got this email because", "ignore it", "text/html", "text/plain"} {
		if !strings.Contains(body, want) {
			t.Fatalf("mail lacks %q:\n%s", want, body)
		}
	}
	link := invitationPath.FindString(body)
	if link == "" {
		t.Fatalf("no invitation link in:\n%s", body)
	}

	b := e.browser()
	b.get(link).expect(http.StatusOK).contains("Join the account of ada@example.com", "Choose a password for newbie@example.com")
	b.post(link, url.Values{"password": {"short"}, "password_confirm": {"short"}}).
		expect(http.StatusUnprocessableEntity).fieldError("password", "Password must be at least 10 characters.")
	b.post(link, url.Values{"password": {"a long enough password"}, "password_confirm": {"a long enough password"}}).
		redirectsTo("/")
	b.get("/").expect(http.StatusOK).contains("You joined the account of ada@example.com as a viewer")
	b.get("/members").expect(http.StatusOK).contains("newbie@example.com", "(you)").lacks("Invite someone")
	b.post("/filesystems", url.Values{"name": {"nope"}, "region": {"us-east-1"}}).expect(http.StatusForbidden)

	e.browser().get(link).expect(http.StatusGone).contains("already been accepted")
	ada.get("/members").expect(http.StatusOK).contains("No pending invitations.")

	// The new user signs in again with the password they chose.
	again := e.browser()
	again.signIn("newbie@example.com", "a long enough password").redirectsTo("/")
}

// An existing user not signed in is sent to sign in and comes back to the
// link; signed in as someone else, the page says so (the link stays
// good); signed in as the invited email, they join as a member.
func TestInvitationExistingUser(t *testing.T) {
	e := newEnv(t, withMailLinksOnPage)
	e.owner("ada@example.com")
	e.owner("bob@example.com")
	e.owner("eve@example.com")
	ada := e.signedIn("ada@example.com")
	page := ada.post("/members/invitations", url.Values{"email": {"bob@example.com"}, "role": {"member"}}).
		expect(http.StatusCreated).contains("Copy it now", "Invitation link for bob@example.com")
	link := invitationPath.FindString(page.Body)
	if link == "" {
		t.Fatal("no link shown without SMTP")
	}
	// Shown once: the list does not show it again.
	ada.get("/members").expect(http.StatusOK).contains("bob@example.com").lacks(link, "Copy it now")

	anon := e.browser()
	signIn := "/sign-in?" + url.Values{"next": {link}}.Encode()
	anon.get(link).expect(http.StatusOK).contains("Sign in as bob@example.com", strings.ReplaceAll(signIn, "&", "&amp;"))
	anon.get(signIn).expect(http.StatusOK)
	anon.post("/sign-in", url.Values{"email": {"bob@example.com"}, "password": {password}, "next": {link}}).redirectsTo(link)

	eve := e.signedIn("eve@example.com")
	eve.get(link).expect(http.StatusForbidden).contains("This invitation is for bob@example.com", "signed in as eve@example.com", "Sign out")
	eve.post(link, nil).expect(http.StatusForbidden).contains("This invitation is for bob@example.com")

	anon.get(link).expect(http.StatusOK).contains("Join the account")
	anon.post(link, nil).redirectsTo("/")
	anon.get("/").expect(http.StatusOK).contains("You joined the account of ada@example.com as a member")
	anon.get("/members").expect(http.StatusOK).contains(`<span class="truncate" title="bob@example.com">bob@example.com</span><span class="muted"> (you)</span>`).lacks("Invite someone")
	e.browser().get(link).expect(http.StatusGone)
	// Inviting a member again is refused beside the field.
	ada.post("/members/invitations", url.Values{"email": {"bob@example.com"}, "role": {"viewer"}}).
		expect(http.StatusUnprocessableEntity).fieldError("email", "Email is already a member of this account.")
}

// Resend kills the old link and shows the new one; revoke kills the
// link; an unknown link is a 404 page, not a 500; a member cannot invite.
func TestInvitationResendRevoke(t *testing.T) {
	e := newEnv(t, withMailLinksOnPage)
	e.owner("ada@example.com")
	ada := e.signedIn("ada@example.com")
	first := invitationPath.FindString(ada.post("/members/invitations",
		url.Values{"email": {"x@example.com"}, "role": {"member"}}).expect(http.StatusCreated).Body)
	invs, err := e.store.Invitations(context.Background(), mustActor(t, e, "ada@example.com"), "")
	if err != nil || len(invs) != 1 {
		t.Fatalf("%v %v", invs, err)
	}
	second := invitationPath.FindString(ada.post("/members/invitations/"+invs[0].ID+"/resend", nil).
		expect(http.StatusCreated).Body)
	if second == "" || second == first {
		t.Fatalf("resend gave %q", second)
	}
	e.browser().get(first).expect(http.StatusGone).contains("withdrawn or replaced")
	e.browser().get(second).expect(http.StatusOK)
	invs, _ = e.store.Invitations(context.Background(), mustActor(t, e, "ada@example.com"), "")
	ada.post("/members/invitations/"+invs[0].ID+"/revoke", nil).redirectsTo("/members")
	ada.get("/members").expect(http.StatusOK).contains("was revoked", "No pending invitations.")
	e.browser().get(second).expect(http.StatusGone)
	e.browser().get("/invitations/" + strings.Repeat("ab", 48)).expect(http.StatusNotFound).contains("not valid")
	e.browser().get("/invitations/nope").expect(http.StatusNotFound)
}

// The daily cap is said on the Members page.
func TestInvitationThrottleOnThePage(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	ada := e.signedIn("ada@example.com")
	owner := mustActor(t, e, "ada@example.com")
	for i := range models.InvitationsPerDay {
		if _, err := e.store.CreateInvitation(context.Background(), owner,
			models.InviteInput{Email: fmt.Sprintf("p%d@example.com", i), Role: "viewer"}); err != nil {
			t.Fatal(err)
		}
	}
	ada.post("/members/invitations", url.Values{"email": {"late@example.com"}, "role": {"viewer"}}).
		expect(http.StatusTooManyRequests).contains("50 invitations in the last 24 hours")
}

func mustActor(t *testing.T, e *env, email string) models.Actor {
	t.Helper()
	u, err := e.store.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.Actor()
}

var _ = handlers.Config{}
