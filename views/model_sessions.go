package views

import "time"

// Sessions is the Sessions section of the account page: the user's live
// sessions, most recently used first.
type Sessions struct {
	Sessions []SessionRow
	Form     Form // a refusal of the last sign-out asked for
	CSRF     string
}

// SessionRow is one session as its user sees it.
type SessionRow struct {
	ID       string
	Browser  string // "Firefox on Linux", from the User-Agent
	Address  string
	SignedIn time.Time
	LastSeen time.Time
	Current  bool // the session this page was asked from
}

// IdentityMethods are the ways a user may prove again who they are on
// the "Confirm it's you" page: the password, and the second factor,
// passkeys and single sign-on providers they have set up. Each method
// renders in its own component (ConfirmWithPassword, ConfirmWithTOTP,
// ConfirmWithPasskey, ConfirmWithSSO).
type IdentityMethods struct {
	Password     bool
	TOTP         bool
	Passkey      bool
	SSOProviders []SSOProvider
}

// SSOProvider is an identity provider the user may confirm through.
type SSOProvider struct {
	ID   string
	Name string
}

// ConfirmIdentity is the "Confirm it's you" page: after a proof, the
// browser goes on to Next (a local path).
type ConfirmIdentity struct {
	Methods IdentityMethods
	Next    string
	// FromForm says the user was sent here by submitting a form, whose
	// values were not kept: they fill it in again afterwards.
	FromForm bool
	Form     Form
	CSRF     string
}
