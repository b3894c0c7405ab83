package models

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code is a stable, machine-readable error code. The API puts it in the
// error envelope; the dashboard picks a message by it. The set is the
// contract's table; do not invent codes in handlers.
type Code string

const (
	CodeInvalidParameters   Code = "global/invalid-parameters"
	CodeDuplicate           Code = "global/duplicate"
	CodeQuotaExceeded       Code = "global/quota-exceeded"
	CodeFilesystemInUse     Code = "filesystems/filesystem-in-use"
	CodeRulesetInUse        Code = "firewall-rulesets/firewall-ruleset-in-use"
	CodeInsufficientCap     Code = "instance-operations/launch/insufficient-capacity"
	CodeFilesystemWrongZone Code = "instance-operations/launch/file-system-in-wrong-region"
	CodeInvalidAPIKey       Code = "global/invalid-api-key"
	CodeAccountInactive     Code = "global/account-inactive"
	CodeInvalidAddress      Code = "global/invalid-address"
	CodeForbidden           Code = "global/forbidden"
	CodeRouteNotFound       Code = "global/not-found"
	CodeNotFound            Code = "global/object-does-not-exist"
	CodeConflict            Code = "global/conflict"
	CodePreconditionFailed  Code = "global/precondition-failed"
	CodeInsufficientScope   Code = "global/insufficient-scope"
	CodeRateLimited         Code = "global/rate-limited"
	CodeProviderUnavailable Code = "provider/internal-unavailable"
	CodeInternal            Code = "global/internal-error"
	CodeBudgetExceeded      Code = "global/budget-exceeded" // ours: a launch past a budget that stops launches
)

// The reference declares the route-level code, global/not-found, for the
// 404 of a few objects rather than global/object-does-not-exist: tickets,
// SSH keys and fabric partitions (CONTRACT.md, "Error codes"). They are
// the same code, so statusOf needs no entry for them.
const (
	CodeTicketNotFound          = CodeRouteNotFound
	CodeSSHKeyNotFound          = CodeRouteNotFound
	CodeFabricPartitionNotFound = CodeRouteNotFound
)

// Error is the one application error type. Domain operations return it;
// each front door maps it exactly once (handlers/api to a status and
// envelope, handlers/web to a message beside the field).
type Error struct {
	Code       Code
	Message    string
	Suggestion string
	// Fields maps an input field (JSON name, dotted for nesting:
	// "rules.2.port_range") to what is wrong with it.
	Fields map[string]string
	// Retryable marks a write that lost a race with another one; the API
	// answers 409 so the caller knows a retry may succeed.
	Retryable bool
	// cause is the failure behind the error, for the log (Unavailable).
	cause error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause, so errors.Is still sees a context's end.
func (e *Error) Unwrap() error { return e.cause }

// Errorf builds an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the error for an object that does not exist in the caller's
// account. Objects of other accounts get exactly the same answer.
func NotFound(what, id string) *Error {
	return notFoundAs(CodeNotFound, what, id)
}

// notFoundAs is NotFound with the code the reference declares for the
// object's 404.
func notFoundAs(code Code, what, id string) *Error {
	return Errorf(code, "%s %q does not exist", what, id)
}

// ErrorCode returns the code of err, or CodeInternal when err carries none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError unwraps err into an *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// FieldErrors collects validation failures keyed by field, in the order
// a person reads a form. Its Err is nil when nothing was added.
type FieldErrors struct {
	fields map[string]string
}

// Add records msg for field unless that field already has a message: the
// first problem found is the one worth fixing first.
func (f *FieldErrors) Add(field, msg string) {
	if f.fields == nil {
		f.fields = map[string]string{}
	}
	if _, seen := f.fields[field]; !seen {
		f.fields[field] = msg
	}
}

// Has reports whether field already has a message.
func (f *FieldErrors) Has(field string) bool { _, ok := f.fields[field]; return ok }

// Err turns the collected failures into a CodeInvalidParameters error whose
// message names every field, or nil when there are none.
func (f *FieldErrors) Err() error {
	if len(f.fields) == 0 {
		return nil
	}
	names := make([]string, 0, len(f.fields))
	for name := range f.fields {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + ": " + f.fields[name]
	}
	return &Error{Code: CodeInvalidParameters, Message: "Invalid " + strings.Join(parts, "; "), Fields: f.fields}
}

// InvalidField is a one-field validation error.
func InvalidField(field, msg string) error {
	var f FieldErrors
	f.Add(field, msg)
	return f.Err()
}
