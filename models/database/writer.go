package database

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"gorm.io/gorm"
)

// sqliteWriter is the one connection through which a process writes a
// SQLite database. SQLite runs one write transaction at a time; with every
// pooled connection free to write, waiting writers slept and retried in
// SQLite's busy handler, which serves them in no order, so the tail grew
// long and waits outlasted busy_timeout. Here they wait in Go instead, in
// arrival order, each until its own context ends.
//
// One goroutine owns the connection and commits the queued changes in
// batches (writer_batch.go): a commit, not the change, is what costs, so
// many changes share one. It runs BEGIN IMMEDIATE and COMMIT as plain
// statements, so the transaction's statements are the pool's prepared
// statements (GORM's cache, on this pool only), prepared once for the life
// of the connection; a database/sql transaction would prepare them anew in
// every transaction. GORM's cache lock is safe here because only that
// goroutine ever takes it, on an idle connection.
type sqliteWriter struct {
	db    *gorm.DB
	sql   *sql.DB
	stmts *gorm.PreparedStmtDB

	mu    sync.Mutex
	queue []*queuedWrite // in arrival order, with abandoned ones
	// waiting counts the queue's changes not abandoned.
	waiting int
	closed  bool
	// arrived wakes the writer goroutine when the queue was empty.
	arrived chan struct{}
	figures writerFigures
	// budget is the time a batch may run changes (batchWork).
	budget atomic.Int64
	// uncheckpointedCommits and uncheckpointedChanges count the commits
	// made and the changes they held (by the writer goroutine) since it
	// last kicked the checkpointer.
	uncheckpointedCommits, uncheckpointedChanges int

	kick chan struct{}
	// finish is set by the checkpointer once its passes have copied most
	// of the WAL back: the writer then copies the rest itself, trying at
	// most that many batches (checkpoint.go).
	finish atomic.Int32
	// restartAt is the WAL's length in frames that starts the passes
	// (restartFrames).
	restartAt atomic.Int64
	// largeBytes counts the bytes of large values committed since the
	// last kick they made, largeSinceRestart since the WAL last started
	// over (wroteLarge).
	largeBytes, largeSinceRestart atomic.Int64
	// passing is held by a checkpoint pass on either side: two at once
	// fail each other (SQLite lets one checkpoint run at a time).
	passing sync.Mutex
	done    chan struct{}
	stopped chan struct{}
	closing sync.Once
}

// checkpointChanges and checkpointCommits are how much the writer commits
// between WAL checkpoints: both, at least that many changes in at least
// that many commits. SQLite checkpoints in the committing connection by
// default (every 1,000 pages), copying pages back and syncing the file
// while every queued writer waits: half the write path's CPU time was in
// COMMIT. A read connection does it instead, in PASSIVE mode, beside the
// writer. Small and often: a pass syncs what it copied, and while the
// filesystem commits a large sync the writer's own WAL writes wait, so
// fewer, larger passes lengthened the tail, and much smaller ones cost
// throughput (docs/performance.md).
//
// A pass costs the pages written since the one before. The changes of a
// large batch (64 clients: about thirty a commit, over twenty accounts)
// share most of their index leaves, so a commit's pages grow far slower
// than its changes: counted in changes alone, passes came every other
// commit at 64 clients and copied the same leaves back each time. Counted
// in commits alone, one client's single-change commits got a pass every
// 20 changes, 2.5 times as many as before, and 9% fewer creates a second.
const (
	checkpointChanges = 50
	checkpointCommits = 20
)

// writerCacheKiB is the writer connection's page cache. SQLite fills a
// cache to its size whatever the hot set (it keeps every page it read
// until the cache is full), so its size is memory the process holds: at
// 32 MiB it was most of the server's 84 MiB peak RSS under the write
// benchmark, where the Go heap in use was under 8 MiB (issue 24). The
// insertion points of the indexes writes touch fit in far less: 4 MiB
// held 6 MiB less than 8 for the same CPU per create (docs/performance.md).
const writerCacheKiB = 4 << 10

// newSQLiteWriter opens the write connection to the database at dsn. Its
// GORM handle is a session of db, so that callbacks (tests hook some)
// apply to writes as to reads.
func newSQLiteWriter(db *gorm.DB, dsn, path string, held *heldFiles) (*sqliteWriter, error) {
	sqlDB, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	// The writer's page cache is writerCacheKiB, the readers' SQLite's
	// default 2 MB: every change walks the insertion points of every index
	// it touches, and with 2 MB they fell out of the cache and were read
	// again, inside the one goroutine all writes wait for.
	// Its statement journals stay in memory: every change of a batch runs
	// in a savepoint, which copies the pages it changes again into one,
	// and SQLite spilled those past 64 KiB to a temporary file, written
	// and deleted batch after batch. A batch's journal is a few MiB at
	// most. (Figures: docs/performance.md.)
	if _, err := sqlDB.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = %d; "+
		"PRAGMA cache_size = -%d; PRAGMA temp_store = MEMORY", walTrimBytes, writerCacheKiB)); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	readers, err := db.DB()
	if err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	stmts := gorm.NewPreparedStmtDB(sqlDB, 256, 0) // IN lists of every length would grow it without end
	w := db.Session(&gorm.Session{NewDB: true, Context: context.Background()})
	w.Statement.ConnPool = stmts
	w.Config.ConnPool = stmts
	sw := &sqliteWriter{db: w, sql: sqlDB, stmts: stmts, arrived: make(chan struct{}, 1),
		kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	sw.budget.Store(int64(batchWork))
	sw.restartAt.Store(restartFrames)
	go sw.checkpoint(readers, path, held)
	go sw.serve()
	return sw, nil
}

// close fails the writes still queued, waits for the batch under way to
// end, and closes the connection. It may be called more than once, as
// DB.Close may.
func (w *sqliteWriter) close() error {
	w.closing.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.done)
		<-w.stopped
		w.stmts.Close()
	})
	return w.sql.Close()
}

// WriterStatistics describes db's SQLite write connection: its pool, and
// how the queued changes were committed. Changes / Commits is the mean
// batch; a mean near 1 under load means commits are not shared.
type WriterStatistics struct {
	Pool sql.DBStats
	// Queued is how many changes wait for the writer now.
	Queued int
	// Commits counts transactions committed, Changes the changes they
	// held, LargestBatch the most in one.
	Commits, Changes, LargestBatch int64
	// Failed counts changes that returned an error or were rolled back
	// with a failed COMMIT; Dropped those whose context ended before they
	// ran.
	Failed, Dropped int64
	// WALRestarts counts the writer's checkpoint passes that copied the
	// whole WAL back, so that the next batch started it over.
	WALRestarts int64
}

// WriterStats reports the statistics of db's SQLite write connection; ok
// is false when db has none (PostgreSQL).
func (db *DB) WriterStats() (stats WriterStatistics, ok bool) {
	w := db.writer
	if w == nil {
		return WriterStatistics{}, false
	}
	w.mu.Lock()
	queued := w.waiting
	w.mu.Unlock()
	stats = w.figures.read()
	stats.Pool, stats.Queued = w.sql.Stats(), queued
	return stats, true
}
