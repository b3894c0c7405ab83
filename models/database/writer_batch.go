package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// Group commit: the writer goroutine takes the changes queued, in arrival
// order, runs each in a SAVEPOINT of one transaction and commits them
// together. A COMMIT (with its WAL write) costs more than a change, so a
// queue of 64 changes costs one commit rather than 64. A change that fails
// is rolled back to its savepoint and only its caller hears of it; nobody
// hears "done" before the COMMIT that holds their change has succeeded,
// and when it fails, every caller in the batch gets its error.
//
// batchSize and batchWork bound a batch: a change that arrives behind one
// waits for it to commit, so they bound that wait too. (Tests lengthen a
// writer's budget, its copy of batchWork, to make batches predictable.)
const (
	batchSize = 64
	batchWork = 5 * time.Millisecond
)

// queuedWrite is one caller's change waiting for, or in, a batch.
type queuedWrite struct {
	ctx context.Context
	fn  func(tx *gorm.DB) error
	// taken and abandoned are guarded by the writer's mu. Until taken into
	// a batch, a caller whose context ends leaves the queue (abandoned);
	// once taken, it waits for the answer, as its change may commit.
	taken, abandoned bool
	answer           chan writeAnswer // buffered: the writer never waits for a caller
}

type writeAnswer struct {
	err      error
	panicked *writePanic
}

func (a writeAnswer) failed() bool { return a.err != nil || a.panicked != nil }

// result is what run returns, or panics with, in the caller's goroutine.
func (a writeAnswer) result() error {
	if a.panicked != nil {
		panic(a.panicked)
	}
	return a.err
}

// writePanic carries a change's panic from the writer goroutine to its
// caller, with the stack where it happened.
type writePanic struct {
	value any
	stack []byte
}

func (p *writePanic) Error() string {
	return fmt.Sprintf("%v (in a write transaction)\n\n%s", p.value, p.stack)
}

func (p *writePanic) Unwrap() error { err, _ := p.value.(error); return err }

// errWriterClosed answers the changes still queued when the database closes.
var errWriterClosed = fmt.Errorf("sqlite writer closed: %w", sql.ErrConnDone)

// run queues fn and waits for its answer: nil once the transaction that
// holds its change has committed. It returns ctx's error if ctx ends
// before fn runs (or while it runs, undoing its change), and re-panics
// with fn's panic.
func (w *sqliteWriter) run(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q := &queuedWrite{ctx: ctx, fn: fn, answer: make(chan writeAnswer, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errWriterClosed
	}
	w.queue = append(w.queue, q)
	w.waiting++
	queued := w.waiting
	w.mu.Unlock()
	select {
	case w.arrived <- struct{}{}:
	default: // already woken
	}
	park(ctx, queued)
	select {
	case a := <-q.answer:
		return a.result()
	case <-ctx.Done():
	}
	w.mu.Lock()
	if !q.taken {
		q.abandoned = true
		w.waiting--
		w.mu.Unlock()
		w.figures.dropped.Add(1)
		return ctx.Err()
	}
	w.mu.Unlock()
	return (<-q.answer).result()
}

// serve commits batches while changes wait, until the writer closes.
func (w *sqliteWriter) serve() {
	defer close(w.stopped)
	for {
		select {
		case <-w.arrived:
			for w.commitBatch() {
			}
		case <-w.done:
			for q := w.next(); q != nil; q = w.next() {
				w.reply(q, writeAnswer{err: errWriterClosed})
			}
			return
		}
	}
}

// next takes the first change still waiting from the queue, or nil.
func (w *sqliteWriter) next() *queuedWrite {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) > 0 {
		q := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		if !q.abandoned {
			q.taken = true
			w.waiting--
			return q
		}
	}
	return nil
}

// commitBatch commits the changes waiting, up to the batch's bounds, in
// one transaction. It reports false when none was waiting.
func (w *sqliteWriter) commitBatch() bool {
	first := w.next()
	for first != nil && w.dropIfEnded(first) {
		first = w.next()
	}
	if first == nil {
		return false
	}
	w.finishCheckpoint()
	start := time.Now()
	// BEGIN waits only for another process (a CLI command) holding the
	// write lock, for as long as the first change's context allows.
	if err := w.exec(first.ctx, "BEGIN IMMEDIATE"); err != nil {
		w.rollback() // an interrupted BEGIN may have begun all the same
		w.reply(first, writeAnswer{err: err})
		return true
	}
	// The first change needs no savepoint: should it fail, the transaction
	// holds nothing else and is rolled back whole.
	if a := w.apply(first); a.failed() {
		w.rollback()
		w.reply(first, a)
		return true
	}
	done := []*queuedWrite{first}
	budget := time.Duration(w.budget.Load())
	yielded := false
	for len(done) < batchSize && time.Since(start) < budget {
		q := w.next()
		if q == nil && !yielded {
			// Once, let the goroutines waiting for a CPU run first: on a
			// small machine they include requests about to queue a change,
			// which would otherwise wait a whole batch and its COMMIT, so
			// batches grow (docs/performance.md).
			runtime.Gosched()
			yielded = true
			q = w.next()
		}
		if q == nil {
			break
		}
		if w.dropIfEnded(q) {
			continue
		}
		a, alive := w.applyInSavepoint(q)
		if !alive {
			w.rollback()
			w.reply(q, a)
			w.fail(done, batchLost(a))
			return true
		}
		if a.failed() {
			w.reply(q, a)
			continue
		}
		done = append(done, q)
	}
	// A COMMIT, once asked for, is not interrupted: its callers would not
	// know whether their changes were made.
	if err := w.exec(context.Background(), "COMMIT"); err != nil {
		w.rollback()
		w.fail(done, err)
		return true
	}
	w.committed(done)
	return true
}

// apply runs q's change. Its statements are not interrupted by q's
// context: SQLite answers an interrupted write inside a transaction by
// rolling back the whole transaction, other callers' changes with it. A
// context that ended meanwhile fails the change afterwards, so that it is
// undone.
func (w *sqliteWriter) apply(q *queuedWrite) (a writeAnswer) {
	defer func() {
		if v := recover(); v != nil {
			a = writeAnswer{panicked: &writePanic{value: v, stack: debug.Stack()}}
		}
	}()
	err := q.fn(w.db.WithContext(context.WithoutCancel(q.ctx)))
	if err == nil {
		err = q.ctx.Err()
	}
	return writeAnswer{err: err}
}

// applyInSavepoint runs q's change in a savepoint, rolled back if it
// fails. alive is false when the transaction itself ended (SQLite ends one
// on some errors, such as a full disk) and the batch is lost.
func (w *sqliteWriter) applyInSavepoint(q *queuedWrite) (a writeAnswer, alive bool) {
	bg := context.Background()
	if err := w.exec(bg, "SAVEPOINT change"); err != nil {
		return writeAnswer{err: err}, false
	}
	a = w.apply(q)
	if !a.failed() {
		if err := w.exec(bg, "RELEASE change"); err != nil {
			return writeAnswer{err: err}, false
		}
		return a, true
	}
	if err := w.exec(bg, "ROLLBACK TO change"); err != nil {
		return a, false
	}
	return a, w.exec(bg, "RELEASE change") == nil
}

// BatchLostError is the answer of the changes that had succeeded in a
// transaction a later change ended: nothing of theirs was committed, and
// they may be retried. Cause is the later change's failure.
type BatchLostError struct{ Cause error }

func (e *BatchLostError) Error() string {
	return fmt.Sprintf("a change committed together with this one failed the transaction: %v", e.Cause)
}

func (e *BatchLostError) Unwrap() error { return e.Cause }

func batchLost(a writeAnswer) error {
	cause := a.err
	if a.panicked != nil {
		cause = a.panicked
	}
	return &BatchLostError{Cause: cause}
}

// exec runs one of the writer's own statements (BEGIN, SAVEPOINT and the
// like) on its connection, prepared once, past GORM: they run around
// every change, and GORM's session and callbacks cost more than SQLite's
// work for them.
func (w *sqliteWriter) exec(ctx context.Context, sql string) error {
	_, err := w.stmts.ExecContext(ctx, sql)
	return err
}

// dropIfEnded answers a change whose context ended while it waited,
// without running it.
func (w *sqliteWriter) dropIfEnded(q *queuedWrite) bool {
	err := q.ctx.Err()
	if err == nil {
		return false
	}
	w.figures.dropped.Add(1)
	q.answer <- writeAnswer{err: err}
	return true
}

func (w *sqliteWriter) reply(q *queuedWrite, a writeAnswer) {
	if a.failed() {
		w.figures.failed.Add(1)
	}
	q.answer <- a
}

func (w *sqliteWriter) fail(done []*queuedWrite, err error) {
	for _, q := range done {
		w.reply(q, writeAnswer{err: err})
	}
}

// committed answers the changes of a committed batch and counts them.
func (w *sqliteWriter) committed(done []*queuedWrite) {
	for _, q := range done {
		q.answer <- writeAnswer{}
	}
	w.figures.commits.Add(1)
	w.figures.changes.Add(int64(len(done)))
	if n := int64(len(done)); n > w.figures.largest.Load() {
		w.figures.largest.Store(n)
	}
	w.uncheckpointedCommits++
	w.uncheckpointedChanges += len(done)
	if w.uncheckpointedCommits >= checkpointCommits && w.uncheckpointedChanges >= checkpointChanges {
		w.uncheckpointedCommits, w.uncheckpointedChanges = 0, 0
		select {
		case w.kick <- struct{}{}:
		default: // one is already due
		}
	}
}

// rollback ends a failed transaction. SQLite may have rolled back already
// (an error can end a transaction); should the connection still be inside
// one after ROLLBACK, it is discarded, so that the next batch never starts
// inside it.
func (w *sqliteWriter) rollback() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.exec(ctx, "ROLLBACK")
	conn, err := w.sql.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if c, ok := dc.(*deadlineConn); ok && !c.AutoCommit() {
			return driver.ErrBadConn
		}
		return nil
	})
}

// writerFigures are the writer's counters behind WriterStatistics.
type writerFigures struct {
	commits, changes, largest, failed, dropped atomic.Int64
	checkpoints                                atomic.Int64
}

func (f *writerFigures) read() WriterStatistics {
	return WriterStatistics{Commits: f.commits.Load(), Changes: f.changes.Load(),
		LargestBatch: f.largest.Load(), Failed: f.failed.Load(), Dropped: f.dropped.Load(),
		WALRestarts: f.checkpoints.Load()}
}
