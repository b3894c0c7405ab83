package views

import "time"

// NavMail marks the mail log in the navigation.
const NavMail = "mail"

// ForgotPassword is the "Forgot your password?" form and, once sent, its
// one answer, whether or not the address has an account.
type ForgotPassword struct {
	Form Form
	Sent bool
	CSRF string
}

// EmailChange is the account page's form that changes the email.
type EmailChange struct {
	Email string
	Form  Form
	// Pending names the address a confirmation link was just sent to.
	Pending string
	// NoPassword: the user has none to type (joined through single
	// sign-on); a recent "Confirm it's you" is asked for instead.
	NoPassword bool
	CSRF       string
}

// ConfirmEmail is the page behind an email change's link.
type ConfirmEmail struct {
	Action             string
	Cancel             bool // the notice's "this was not me" link
	OldEmail, NewEmail string
	CSRF               string
}

// MailLog is the support staff's log of outgoing mail.
type MailLog struct {
	Messages []MailMessage
	Status   string
	Next     string // the query that shows the next page; "" on the last
}

// MailMessage is one row of the mail log.
type MailMessage struct {
	ID, Kind, Recipient, Subject, Status, LastError string
	Attempts                                        int
	Created, Updated, NextAttempt                   time.Time
	Sent                                            *time.Time
	// Link is the live link of a message written to the server's log
	// instead of sent (no SMTP server), for staff to pass on until
	// LinkExpires; empty otherwise.
	Link        string
	LinkExpires time.Time
}
