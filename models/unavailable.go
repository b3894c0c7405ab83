package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
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

// Classify returns the domain error err carries. Reads hand driver errors
// back untranslated, so a database that is down or too slow is recognised
// here as well as in translate: both front doors map through Classify.
func Classify(err error) (*Error, bool) {
	if e, ok := AsError(err); ok {
		return e, true
	}
	if err != nil && isUnavailable(err) {
		return Unavailable(err), true
	}
	return nil, false
}

// ClientGone reports whether err only says the request's context was
// cancelled (the server is stopping, or the caller left): worth an answer,
// not an error in the log.
func ClientGone(err error) bool {
	return errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// isUnavailable recognises a deadline or cancellation reaching the driver,
// and a connection that could not be made or was lost. The drivers differ:
// pgx wraps the context's error and net errors; database/sql reports a
// connection dropped under it as ErrBadConn or ErrConnDone; SQLite answers
// "interrupted" when a context ends a statement the driver could not
// return early from.
func isUnavailable(err error) bool {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &netErr):
		return true
	}
	msg := err.Error()
	for _, s := range unavailableMessages {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// unavailableMessages are driver errors that carry no type to test: pgx's
// closed connection, PostgreSQL's administrator shutdown and termination
// (SQLSTATE 57P01 to 57P03), and SQLite's interrupted statement.
var unavailableMessages = []string{
	"conn closed",
	"SQLSTATE 57P0",
	"interrupted",
}
