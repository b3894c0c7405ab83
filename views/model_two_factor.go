package views

// TOTPEnrolment is an authenticator to set up: its secret as text and as
// a QR code (a data: URL of a PNG drawn by the server).
type TOTPEnrolment struct {
	Secret string
	QR     string
}

// TwoFactor is the account page's Two-factor authentication section.
type TwoFactor struct {
	Enabled           bool
	Pending           *TOTPEnrolment // an enrolment waiting for its code
	RecoveryCodesLeft int
	RecoveryCodes     []string // new codes, shown this once
	Required          bool     // an account or rule requires it: it cannot be turned off
	Owner             bool     // the user owns the account the session acts on
	AccountRequires   bool     // that account requires a second factor of its members
	Form              Form
	CSRF              string
}

// SecondFactorStep is the sign-in's second step: a code.
type SecondFactorStep struct {
	Form Form
	CSRF string
	// TOTP offers the code form, Passkey "Use a passkey": each when the
	// user has that factor.
	TOTP    bool
	Passkey bool
}

// Enrol is the sign-in step where a user an account requires to have a
// second factor sets one up.
type Enrol struct {
	Enrolment TOTPEnrolment
	Form      Form
	CSRF      string
	// Passkey is the "add a passkey instead" form's state.
	Passkey Form
}

// RecoveryCodes shows new recovery codes once, then goes on to Next.
type RecoveryCodes struct {
	Codes []string
	Next  string
}
