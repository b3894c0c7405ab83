package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Statement is one SQL statement for PostgreSQL, with $n placeholders, and
// its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// Row is a statement's first row. Scan answers sql.ErrNoRows when there
// is none.
type Row interface{ Scan(dest ...any) error }

// WriteAfterLock runs a transaction of two statements on PostgreSQL in two
// round trips: BEGIN with lock, a statement that takes a row lock; then
// the statement change builds from lock's row, with COMMIT. done reads the
// change's row once it committed. A transaction whose statements wait in
// the client while it holds a lock makes every waiter for that lock wait
// as long, and as a database/sql transaction a create took seven round
// trips, five of them under the lock; here the lock is held for one.
//
// An error from change rolls the transaction back (one round trip more)
// and is returned as it is. done's error is returned as it is too, but the
// transaction has committed: a change that can be refused must write
// nothing then (it returns what done needs to say why). A failed statement
// rolls the transaction back; a unique violation reads as
// gorm.ErrDuplicatedKey. As in Write, a connection found dead before
// anything was sent is replaced, and an error while ctx ends wraps ctx's.
func (db *DB) WriteAfterLock(ctx context.Context, lock Statement, change func(Row) (Statement, error), done func(Row) error) error {
	if db.writer != nil {
		return errors.New("WriteAfterLock is for PostgreSQL")
	}
	sqlDB, err := db.gorm.DB()
	if err != nil {
		return err
	}
	var fnErr error
	run := func() error {
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("WriteAfterLock: driver connection %T is not pgx's", dc)
			}
			err := lockedWrite(ctx, c.Conn(), lock, change, done)
			var refused *refusal
			if errors.As(err, &refused) {
				fnErr = refused.err
				return nil
			}
			return err
		})
	}
	// database/sql answers ErrBadConn when the pool handed it only dead
	// connections (those closed by their callers' ended contexts), and
	// pgx says when nothing was sent: in both, the write runs again.
	err = run()
	for retry := 0; retry < 2 && err != nil && ctx.Err() == nil &&
		(errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err)); retry++ {
		err = run()
	}
	if err == nil {
		return fnErr
	}
	if t, ok := db.gorm.Dialector.(gorm.ErrorTranslator); ok {
		err = t.Translate(err)
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// refusal carries the error of change or done out of conn.Raw, which
// would otherwise take a driver.ErrBadConn among them for its own.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

func lockedWrite(ctx context.Context, c *pgx.Conn, lock Statement, change func(Row) (Statement, error), done func(Row) error) error {
	var next Statement
	var changeErr error
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(lock.SQL, lock.Args...).QueryRow(func(row pgx.Row) error {
		next, changeErr = change(noRows{row})
		return nil
	})
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return endFailed(ctx, c, err)
	}
	if changeErr != nil {
		if err := rollback(ctx, c); err != nil {
			return err
		}
		return &refusal{changeErr}
	}
	var doneErr error
	b = &pgx.Batch{}
	b.Queue(next.SQL, next.Args...).QueryRow(func(row pgx.Row) error {
		doneErr = done(noRows{row})
		return nil
	})
	b.Queue("COMMIT")
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return endFailed(ctx, c, err)
	}
	if doneErr != nil {
		return &refusal{doneErr}
	}
	return nil
}

// endFailed rolls back the transaction a failed batch left open, if the
// connection is still in it, and returns the batch's error.
func endFailed(ctx context.Context, c *pgx.Conn, err error) error {
	if s := c.PgConn().TxStatus(); s == 'T' || s == 'E' {
		if rbErr := rollback(ctx, c); rbErr != nil {
			return errors.Join(err, rbErr)
		}
	}
	return err
}

// rollback ends the transaction, or else the connection: database/sql
// must not hand out one still in a transaction, and drops a closed one.
func rollback(ctx context.Context, c *pgx.Conn) error {
	_, err := c.Exec(ctx, "ROLLBACK")
	if err != nil {
		_ = c.Close(ctx)
	}
	return err
}

// noRows reads pgx's "no rows" as database/sql's.
type noRows struct{ pgx.Row }

func (r noRows) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}
