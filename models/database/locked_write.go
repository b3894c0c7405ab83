package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

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

// WriteAfterLock runs a write of two statements on PostgreSQL: lock, which
// takes the row lock of key (an account), then the statement change builds
// from lock's row. done reads the change's row once it committed. Writes
// of one key that wait together commit together, in one transaction that
// takes the lock once, in two round trips (lockedBatch): while a
// transaction holds a lock, every waiter for it waits as long, and as a
// database/sql transaction a create took seven round trips, five of them
// under the lock, and a commit of its own.
//
// A transaction locks only its key's row, so the locks are taken in the
// order of one write's, in this process and across replicas: grouping
// closes no deadlock cycle.
//
// An error from change ends the write, which has written nothing; done's
// error is returned as it is too, but the change has committed: a change
// that can be refused must write nothing then (it returns what done needs
// to say why). A failed statement rolls the write back (the others of its
// transaction run again without it); a unique violation reads as
// gorm.ErrDuplicatedKey. A caller whose ctx ends returns ctx's error at
// once: queued, its write is dropped; taken into a transaction, the write
// may still commit, as one whose COMMIT was under way. The transaction
// serves every caller of its batch, so it ends with the last of their
// deadlines, not with the first to give up.
func (db *DB) WriteAfterLock(ctx context.Context, key string, lock Statement, change func(Row) (Statement, error), done func(Row) error) error {
	if db.writer != nil {
		return errors.New("WriteAfterLock is for PostgreSQL")
	}
	w := &lockedWrite{ctx: ctx, lock: lock, change: change, done: done, answer: make(chan lockedAnswer, 1)}
	a := db.locked.wait(db, key, w)
	err := a.err
	if err == nil || a.refused {
		return err
	}
	return db.statementError(ctx, err)
}

// statementError is what WriteAfterLock and ExecAlone make of a failed
// statement: a unique violation reads as gorm.ErrDuplicatedKey, and a
// failure as ctx ended has ctx's error as its cause.
func (db *DB) statementError(ctx context.Context, err error) error {
	if t, ok := db.gorm.Dialector.(gorm.ErrorTranslator); ok {
		err = t.Translate(err)
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// lockedWrite is one write of WriteAfterLock, queued under its key.
type lockedWrite struct {
	ctx    context.Context
	lock   Statement
	change func(Row) (Statement, error)
	done   func(Row) error
	// answer receives the write's outcome; it has room for it, so that
	// the worker never waits for a caller that left.
	answer chan lockedAnswer

	state writeState // guarded by lockedGroups.mu
	// Set by the worker running the write.
	next    Statement
	final   bool  // err is the outcome, whatever becomes of the others
	err     error // of change or done, or the statement's failure
	refused bool  // err is change's or done's own
}

// lockedAnswer is a write's outcome; refused says that err is change's
// or done's own, to be returned as it is.
type lockedAnswer struct {
	err     error
	refused bool
}

type writeState int

const (
	queued writeState = iota
	abandoned
	taken // into a batch
)

// maxLockedBatch bounds the writes of one transaction.
const maxLockedBatch = 32

// lockedGroups queues WriteAfterLock's writes by key. A key in m has a
// worker goroutine, which runs batches of the key's queued writes one
// after the other and ends when none is left.
type lockedGroups struct {
	mu sync.Mutex
	m  map[string][]*lockedWrite
}

// wait queues w and returns its outcome, or its context's error as soon
// as that ends (the write may then still commit, as a COMMIT under way
// when a context ends may).
func (g *lockedGroups) wait(db *DB, key string, w *lockedWrite) lockedAnswer {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string][]*lockedWrite{}
	}
	q, working := g.m[key]
	g.m[key] = append(q, w)
	g.mu.Unlock()
	if !working {
		go g.work(db, key)
	}
	select {
	case a := <-w.answer:
		return a
	case <-w.ctx.Done():
	}
	g.mu.Lock()
	if w.state == queued {
		w.state = abandoned
	}
	g.mu.Unlock()
	return lockedAnswer{err: w.ctx.Err()}
}

// work runs batches of key's queued writes until none is left.
func (g *lockedGroups) work(db *DB, key string) {
	for {
		g.mu.Lock()
		var batch []*lockedWrite
		rest := g.m[key][:0]
		for _, w := range g.m[key] {
			switch {
			case w.state != queued:
			case w.ctx.Err() != nil:
				w.state = abandoned
				w.answer <- lockedAnswer{err: w.ctx.Err()}
			case len(batch) < maxLockedBatch:
				w.state = taken
				batch = append(batch, w)
			default:
				rest = append(rest, w)
			}
		}
		if len(batch) == 0 {
			delete(g.m, key)
			g.mu.Unlock()
			return
		}
		g.m[key] = rest
		g.mu.Unlock()
		db.runLocked(batch)
	}
}

// runLocked runs batch's writes in as few transactions as their failures
// allow, on one connection, and answers each.
func (db *DB) runLocked(batch []*lockedWrite) {
	// The transaction serves every caller of the batch: it ends with the
	// last deadline among them, not with the first to give up.
	ctx, cancel := context.WithoutCancel(batch[0].ctx), func() {}
	if last, ok := lastDeadline(batch); ok {
		ctx, cancel = context.WithDeadline(ctx, last)
	}
	defer cancel()
	err := db.runLockedOnce(ctx, batch)
	for retry := 0; retry < 2 && err != nil && ctx.Err() == nil &&
		// database/sql answers ErrBadConn when the pool handed it only
		// dead connections (closed by their callers' ended contexts), and
		// pgx says when nothing was sent: the writes run again.
		(errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err)); retry++ {
		err = db.runLockedOnce(ctx, batch)
	}
	for _, w := range batch {
		if w.final {
			w.answer <- lockedAnswer{err: w.err, refused: w.refused}
		} else {
			w.answer <- lockedAnswer{err: err}
		}
	}
}

func lastDeadline(batch []*lockedWrite) (last time.Time, ok bool) {
	for _, w := range batch {
		d, has := w.ctx.Deadline()
		if !has {
			return time.Time{}, false
		}
		if d.After(last) {
			last = d
		}
	}
	return last, true
}

// runLockedOnce runs the writes of batch not yet answered on one pooled
// connection.
func (db *DB) runLockedOnce(ctx context.Context, batch []*lockedWrite) error {
	var pending []*lockedWrite
	for _, w := range batch {
		if !w.final {
			pending = append(pending, w)
		}
	}
	return withConn(ctx, db.gorm, func(conn *sql.Conn) error {
		return conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("WriteAfterLock: driver connection %T is not pgx's", dc)
			}
			return lockedBatch(ctx, c.Conn(), pending)
		})
	})
}

// lockedBatch commits pending in one transaction of two round trips:
// BEGIN with every write's lock statement (the first takes the lock, the
// others find it held), then every change with COMMIT. A write refused by
// change is answered and left out; a statement that fails is that write's
// answer, and the others run again in a new transaction. Its error is the
// answer of every write not answered.
func lockedBatch(ctx context.Context, c *pgx.Conn, pending []*lockedWrite) error {
	for len(pending) > 0 {
		b := &pgx.Batch{}
		b.Queue("BEGIN")
		for _, w := range pending {
			b.Queue(w.lock.SQL, w.lock.Args...).QueryRow(func(row pgx.Row) error {
				var err error
				if w.next, err = w.change(noRows{row}); err != nil {
					w.final, w.err, w.refused = true, err, true
				}
				return nil
			})
		}
		if err := c.SendBatch(ctx, b).Close(); err != nil {
			return endFailed(ctx, c, err)
		}
		var going []*lockedWrite
		for _, w := range pending {
			if !w.final {
				going = append(going, w)
			}
		}
		if len(going) == 0 {
			return rollback(ctx, c)
		}
		failed, err := commitChanges(ctx, c, going)
		if err == nil {
			return nil
		}
		if failed == nil {
			return endFailed(ctx, c, err)
		}
		if rbErr := rollback(ctx, c); rbErr != nil {
			return errors.Join(err, rbErr)
		}
		pending = pending[:0]
		for _, w := range going {
			if w != failed {
				w.final, w.err, w.refused = false, nil, false
				pending = append(pending, w)
			}
		}
	}
	return nil
}

// commitChanges sends going's changes and COMMIT. When a change's
// statement failed, failed is its write, answered with the failure.
func commitChanges(ctx context.Context, c *pgx.Conn, going []*lockedWrite) (failed *lockedWrite, err error) {
	b := &pgx.Batch{}
	for _, w := range going {
		b.Queue(w.next.SQL, w.next.Args...).QueryRow(func(row pgx.Row) error {
			r := &recordedRow{Row: noRows{row}}
			if err := w.done(r); err != nil {
				w.final, w.err, w.refused = true, err, r.err == nil
			}
			if isStatementError(r.err) {
				failed = w
				w.final, w.err, w.refused = true, r.err, false
			}
			return nil
		})
	}
	b.Queue("COMMIT")
	err = c.SendBatch(ctx, b).Close()
	if err == nil && failed != nil {
		err = failed.err
	}
	return failed, err
}

// isStatementError tells a statement that failed in the server from a
// connection that did.
func isStatementError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

// recordedRow keeps the error of Scan.
type recordedRow struct {
	Row
	err error
}

func (r *recordedRow) Scan(dest ...any) error {
	r.err = r.Row.Scan(dest...)
	return r.err
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

// ExecAlone runs s as a transaction of its own on PostgreSQL: one round
// trip, where BEGIN, the statement and COMMIT took three. For a write
// that builds nothing from what it reads. It returns the rows s changed;
// a unique violation reads as gorm.ErrDuplicatedKey.
func (db *DB) ExecAlone(ctx context.Context, s Statement) (int64, error) {
	if db.writer != nil {
		return 0, errors.New("ExecAlone is for PostgreSQL")
	}
	res, err := db.gorm.ConnPool.ExecContext(ctx, s.SQL, s.Args...)
	if err != nil {
		return 0, db.statementError(ctx, err)
	}
	return res.RowsAffected()
}
