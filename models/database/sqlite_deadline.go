package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mattn/go-sqlite3"
)

// sqliteDriver is go-sqlite3 with waits for the write lock bounded by the
// caller's deadline. SQLite waits for a lock held by another connection in
// its busy handler, which sqlite3_interrupt (how go-sqlite3 honours a
// context) does not stop: without this, a request whose deadline is
// shorter than _busy_timeout waits the whole busy timeout, then answers
// the 409 of a lost race. Here a statement that may wait for the lock
// first lowers the connection's busy timeout to the time left, and
// running out of it is the deadline passing.
const sqliteDriver = "sqlite3_deadline"

func init() { sql.Register(sqliteDriver, deadlineDriver{}) }

type deadlineDriver struct{}

func (deadlineDriver) Open(dsn string) (driver.Conn, error) {
	c, err := (&sqlite3.SQLiteDriver{}).Open(dsn)
	if err != nil {
		return nil, err
	}
	conn := &deadlineConn{SQLiteConn: c.(*sqlite3.SQLiteConn)}
	rows, err := conn.Query("PRAGMA busy_timeout", nil)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	v := make([]driver.Value, 1)
	err = rows.Next(v)
	_ = rows.Close()
	ms, ok := v[0].(int64)
	if err != nil || !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("read busy_timeout: %v", err)
	}
	conn.busy = time.Duration(ms) * time.Millisecond
	return conn, nil
}

// deadlineConn is a go-sqlite3 connection whose lock-taking calls (BEGIN
// IMMEDIATE, and writes outside a transaction) wait no longer than their
// context allows. Every other method is go-sqlite3's own.
type deadlineConn struct {
	*sqlite3.SQLiteConn
	busy  time.Duration // the DSN's _busy_timeout, restored after each call
	stmts connStatements
}

// Close finalizes the connection's kept statements, then closes it.
func (c *deadlineConn) Close() error {
	c.stmts.close()
	return c.SQLiteConn.Close()
}

func (c *deadlineConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	restore, err := c.boundBusy(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.SQLiteConn.BeginTx(ctx, opts)
	return tx, restore(err)
}

func (c *deadlineConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	restore, err := c.boundBusy(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.SQLiteConn.ExecContext(ctx, query, args)
	return res, restore(err)
}

func (c *deadlineConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.SQLiteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &deadlineStmt{SQLiteStmt: s.(*sqlite3.SQLiteStmt), conn: c}, nil
}

// deadlineStmt bounds a prepared write the same way (GORM prepares every
// statement).
type deadlineStmt struct {
	*sqlite3.SQLiteStmt
	conn *deadlineConn
}

func (s *deadlineStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	restore, err := s.conn.boundBusy(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.SQLiteStmt.ExecContext(ctx, args)
	return res, restore(err)
}

// boundBusy lowers the busy timeout to what is left of ctx's deadline when
// that is shorter. The returned restore puts it back and turns a busy
// error into the deadline's, since the wait ended because time ran out.
func (c *deadlineConn) boundBusy(ctx context.Context) (restore func(error) error, err error) {
	deadline, ok := ctx.Deadline()
	left := time.Until(deadline)
	if !ok || left >= c.busy {
		return func(err error) error { return err }, nil
	}
	if left <= 0 {
		return nil, context.DeadlineExceeded
	}
	if err := c.setBusy(left); err != nil {
		return nil, err
	}
	return func(err error) error {
		if rerr := c.setBusy(c.busy); rerr != nil && err == nil {
			err = rerr
		}
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrBusy {
			return fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
		}
		return err
	}, nil
}

func (c *deadlineConn) setBusy(d time.Duration) error {
	_, err := c.SQLiteConn.Exec("PRAGMA busy_timeout = "+strconv.FormatInt(max(d.Milliseconds(), 1), 10), nil)
	return err
}

// Reads honour their context between rows, not inside SQLite. go-sqlite3
// makes a query interruptible by running every step of it, row after row,
// in a goroutine of its own that the caller waits for, a hand-off per row
// that under load was most of a read's time in the driver. Here the
// driver gets a context that never ends, and the rows stop with the
// caller's error at the next row once it has ended. Reads are index
// ranges and bounded pages, so a step is short; lock waits, which can be
// long, are bounded by boundBusy.

func (c *deadlineConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rows, release, ok, err := c.stmts.query(c.SQLiteConn, query, args); ok {
		if err != nil {
			return nil, err
		}
		return &deadlineRows{SQLiteRows: rows, ctx: ctx, release: release}, nil
	}
	rows, err := c.SQLiteConn.QueryContext(context.WithoutCancel(ctx), query, args)
	return endedBy(ctx, rows), err
}

func (s *deadlineStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.SQLiteStmt.QueryContext(context.WithoutCancel(ctx), args)
	return endedBy(ctx, rows), err
}

// endedBy wraps go-sqlite3's rows so that they end with ctx.
func endedBy(ctx context.Context, rows driver.Rows) driver.Rows {
	if r, ok := rows.(*sqlite3.SQLiteRows); ok {
		return &deadlineRows{SQLiteRows: r, ctx: ctx}
	}
	return rows
}

// deadlineRows are go-sqlite3's rows, ended by their query's context.
type deadlineRows struct {
	*sqlite3.SQLiteRows
	ctx     context.Context
	release func() // of a kept statement (connStatements), or nil
}

func (r *deadlineRows) Close() error {
	err := r.SQLiteRows.Close()
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return err
}

func (r *deadlineRows) Next(dest []driver.Value) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return r.SQLiteRows.Next(dest)
}
