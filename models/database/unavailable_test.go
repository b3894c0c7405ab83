package database_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"cloudplane/models/database"
)

// IsUnavailable tells a database that did not answer, whatever the
// driver's way of saying so, from a failure of the statement itself.
func TestIsUnavailableKnowsTheDriversWays(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{context.Canceled, true},
		{driver.ErrBadConn, true},
		{sql.ErrConnDone, true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{errors.New("conn closed"), true},
		{errors.New("FATAL: terminating connection due to administrator command (SQLSTATE 57P01)"), true},
		{errors.New("interrupted"), true},
		{nil, false},
		{errors.New("UNIQUE constraint failed: filesystems.name"), false},
		{errors.New("ERROR: syntax error at or near \"SELEC\" (SQLSTATE 42601)"), false},
		{errors.New("database is locked"), false},
	} {
		if got := database.IsUnavailable(tc.err); got != tc.want {
			t.Errorf("IsUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A lock wait that ran out is busy, not a lost race: SQLite's busy
// timeout and PostgreSQL's lock and statement timeouts.
func TestIsBusyIsNotAConflict(t *testing.T) {
	for _, tc := range []struct {
		err            error
		busy, conflict bool
	}{
		{errors.New("database is locked"), true, false},
		{errors.New("ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)"), true, false},
		{errors.New("ERROR: canceling statement due to statement timeout (SQLSTATE 57014)"), true, false},
		{errors.New("ERROR: could not serialize access (SQLSTATE 40001)"), false, true},
		{errors.New("ERROR: deadlock detected (SQLSTATE 40P01)"), false, true},
		{errors.New("UNIQUE constraint failed: filesystems.name"), false, false},
	} {
		if got := database.IsBusy(tc.err); got != tc.busy {
			t.Errorf("IsBusy(%v) = %v, want %v", tc.err, got, tc.busy)
		}
		if got := database.IsConflict(tc.err); got != tc.conflict {
			t.Errorf("IsConflict(%v) = %v, want %v", tc.err, got, tc.conflict)
		}
	}
}
