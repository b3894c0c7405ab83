package models

import (
	"cmp"
	"fmt"
)

// Roles. A member of an account is its owner, a member or a viewer
// (Membership.Role); support staff belong to no account. A user's own
// Role column says which kind of person they are: RoleOwner for a
// customer (who may own accounts, and be a member or viewer of others)
// or RoleSupport.
const (
	RoleOwner   = "owner"
	RoleMember  = "member"
	RoleViewer  = "viewer"
	RoleSupport = "support"
)

// MemberRoles are the roles of an account's members, most powerful first.
var MemberRoles = []string{RoleOwner, RoleMember, RoleViewer}

// Actor is who asks for an operation: a user signed in to the dashboard,
// a script holding one of the user's API keys, or the operator's CLI.
// Domain operations take it to check permission and to write audit events.
// For a member of an account, Role is their role in AccountID, read from
// their membership when the session or key was resolved.
type Actor struct {
	UserID    string
	Email     string
	Role      string
	AccountID string // empty for support staff and the operator
	APIKeyID  string // set when the request came with an API key
	SessionID string // set when the request came from a dashboard session
	ReadOnly  bool   // the API key may only read (GET and HEAD)
	Operator  bool   // the CLI, acting with the machine's authority
	Service   string // the background job acting, for the system role ("webhooks" when empty)
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
		s := lrn("service", cmp.Or(a.Service, "webhooks"))
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

// operates returns the account in which the actor may change the
// account's resources (instances, filesystems, firewall rules, rulesets,
// fabric partitions, SSH keys, tickets, their own API keys): an owner's or
// a member's. A viewer gets CodeInsufficientScope, anyone without an
// account CodeForbidden.
func (a Actor) operates() (string, error) {
	accountID, err := a.ownAccount()
	if err != nil {
		return "", err
	}
	if a.Role != RoleOwner && a.Role != RoleMember {
		return "", insufficientRole(a.Role, "change this account's resources", RoleMember)
	}
	return accountID, nil
}

// manages returns the account the actor owns: members, webhooks and their
// secrets, every member's API keys. Members and viewers get
// CodeInsufficientScope, anyone without an account CodeForbidden.
func (a Actor) manages() (string, error) {
	accountID, err := a.ownAccount()
	if err != nil {
		return "", err
	}
	if a.Role != RoleOwner {
		return "", insufficientRole(a.Role, "manage this account's members, webhooks and keys", RoleOwner)
	}
	return accountID, nil
}

// managesWebhooks checks the actor may act on webhook deliveries: staff
// on any account's, an owner on their own's.
func (a Actor) managesWebhooks() error {
	if a.isStaff() {
		return nil
	}
	_, err := a.manages()
	return err
}

// Owns reports whether the actor is an owner of the account they act on;
// the dashboard shows an owner's controls by it (the domain checks again).
func (a Actor) Owns() bool { return a.AccountID != "" && a.Role == RoleOwner }

// Operates reports whether the actor may change the account's resources:
// an owner or a member. Pages hide the forms of a viewer by it.
func (a Actor) Operates() bool { _, err := a.operates(); return err == nil }

// insufficientRole is the refusal of an operation the actor's role does
// not allow: 403 global/insufficient-scope in the API, a message in the
// dashboard.
func insufficientRole(role, what, needs string) *Error {
	if role == "" {
		role = "none"
	}
	return &Error{Code: CodeInsufficientScope,
		Message:    fmt.Sprintf("Your role in this account (%s) does not allow you to %s", role, what),
		Suggestion: fmt.Sprintf("Ask an owner of the account to make you %s", article(needs))}
}

func article(role string) string {
	if role == RoleOwner {
		return "an owner"
	}
	return "a " + role
}
