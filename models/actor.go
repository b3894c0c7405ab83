package models

// Roles a user can have.
const (
	RoleOwner   = "owner"
	RoleSupport = "support"
)

// Actor is who asks for an operation: a user signed in to the dashboard,
// a script holding one of the user's API keys, or the operator's CLI.
// Domain operations take it to check permission and to write audit events.
type Actor struct {
	UserID    string
	Email     string
	Role      string
	AccountID string // empty for support staff and the operator
	APIKeyID  string // set when the request came with an API key
	SessionID string // set when the request came from a dashboard session
	ReadOnly  bool   // the API key may only read (GET and HEAD)
	Operator  bool   // the CLI, acting with the machine's authority
}

// OperatorActor is the CLI run by whoever operates the server.
var OperatorActor = Actor{Operator: true, Role: "operator"}

// WebhooksActor is the webhook dispatcher, when a receiver's answer changes
// settings (410 Gone disables the endpoint).
var WebhooksActor = Actor{Role: roleSystem}

const roleSystem = "system"

// IsSupport reports whether the actor is support staff.
func (a Actor) IsSupport() bool { return a.Role == RoleSupport }

// isStaff reports whether the actor works across accounts: support staff
// and the operator's CLI.
func (a Actor) isStaff() bool { return a.IsSupport() || a.Operator }

// scope returns the account a read is limited to: the owner's own, or for
// staff the requested one ("" meaning every account).
func (a Actor) scope(requested string) (string, error) {
	if a.isStaff() {
		return requested, nil
	}
	return a.ownAccount()
}

// lrn builds a Lambda-style resource name, lrn:cloud:<kind>:<id>.
func lrn(kind, id string) string { return "lrn:cloud:" + kind + ":" + id }

func (a Actor) lrn() *string {
	switch {
	case a.UserID != "":
		s := lrn("user", a.UserID)
		return &s
	case a.Operator:
		s := lrn("operator", "cli")
		return &s
	case a.Role == roleSystem:
		s := lrn("service", "webhooks")
		return &s
	}
	return nil
}

// auditLog returns the audit log the actor reads, by its account id: an
// owner's account's, or for support staff the platform's own, the events
// of no account (staff sign-ins, internal notes, staff users), which no
// owner sees. Anyone else gets CodeForbidden.
func (a Actor) auditLog() (accountID string, err error) {
	if a.IsSupport() && a.AccountID == "" {
		return "", nil
	}
	return a.ownAccount()
}

// ownAccount returns the account the actor acts on, or an error when the
// actor has none (support staff reach accounts through support operations).
func (a Actor) ownAccount() (string, error) {
	if a.AccountID == "" {
		return "", Errorf(CodeForbidden, "This operation needs an account owner")
	}
	return a.AccountID, nil
}

// role is what the audit log records of who acted: the user's role, the
// operator or the system; nil when nobody is named.
func (a Actor) role() *string {
	if a.lrn() == nil || a.Role == "" {
		return nil
	}
	r := a.Role
	return &r
}
