package models

import (
	"context"
	"errors"

	"cloudplane/models/database"
)

// Unavailable is the error for a database that did not answer within the
// request's deadline, refused the connection or dropped it. Nothing about
// the request was wrong, so the caller is told to come back shortly; the
// cause is kept for the log.
func Unavailable(cause error) *Error {
	return &Error{Code: CodeProviderUnavailable, cause: cause,
		Message:    "The database is unavailable or did not answer in time",
		Suggestion: "Try again shortly"}
}

// Busy is the error for a write that waited for a lock another
// connection or process held (a CLI command, a backup, a long
// transaction) until the wait ran out. Nothing raced and nothing was
// saved: it is Unavailable, answered 503 with Retry-After, never the 409
// of a lost race, so the dashboard gives the form back to send again.
func Busy(cause error) *Error {
	return &Error{Code: CodeProviderUnavailable, cause: cause,
		Message:    "The database was busy with other work and nothing was saved",
		Suggestion: "Try again shortly"}
}

// IsBusy reports whether err is Busy: a write refused after waiting for
// another's lock, so certainly not made.
func IsBusy(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == CodeProviderUnavailable && e.cause != nil && database.IsBusy(e.cause)
}

// Classify returns the domain error err carries. Reads hand driver errors
// back untranslated, so a database that is down or too slow is recognised
// here as well as in translate: both front doors map through Classify.
// Which driver errors mean that is the storage engine's knowledge
// (database.IsUnavailable).
func Classify(err error) (*Error, bool) {
	if e, ok := AsError(err); ok {
		return e, true
	}
	if err != nil && database.IsUnavailable(err) {
		return Unavailable(err), true
	}
	if err != nil && database.IsBusy(err) {
		return Busy(err), true
	}
	return nil, false
}

// ClientGone reports whether err only says the request's context was
// cancelled (the server is stopping, or the caller left): worth an answer,
// not an error in the log.
func ClientGone(err error) bool {
	return errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
