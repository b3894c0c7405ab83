package views

import "time"

// PendingInvitation is one row of the Members page's pending invitations.
type PendingInvitation struct {
	ID, Email, Role, InvitedBy string
	Sent, Expires              time.Time
	Expired                    bool
}

// InvitationLink is the link of an invitation just created or resent,
// shown once to the owner when no mail is sent (no --smtp-url).
type InvitationLink struct {
	Email, URL string
}

// Invitation modes: what the page of an invitation link offers.
const (
	InvitationSignUp    = "signup"    // a new person chooses a password
	InvitationJoin      = "join"      // signed in with the invited email
	InvitationSignIn    = "signin"    // the invited email has a user: sign in first
	InvitationWrongUser = "wronguser" // signed in as someone else
	InvitationGone      = "gone"      // accepted, revoked, replaced, expired or unknown
)

// Invitation is the page an invitation link opens.
type Invitation struct {
	Mode                      string
	Action                    string // the link's own path, the form's action
	Email, Role, Inviter      string
	Account                   string // named by its first owner's email
	SignedInAs                string
	SignInURL                 string // sign-in with the way back here
	GoneTitle, GoneSuggestion string
	Form                      Form
	CSRF                      string
}
