package database

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

// IsUnavailable recognises a database that did not answer: a deadline or
// cancellation reaching the driver, and a connection that could not be
// made or was lost. The drivers differ: pgx wraps the context's error and
// net errors; database/sql reports a connection dropped under it as
// ErrBadConn or ErrConnDone; SQLite answers "interrupted" when a context
// ends a statement the driver could not return early from. The domain
// answers such an error as models.Unavailable.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
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
