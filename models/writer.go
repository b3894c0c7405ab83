package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
	"golang.org/x/sync/semaphore"
	"gorm.io/gorm"
)

// sqliteWriter is the one connection through which a process writes a
// SQLite database. SQLite runs one write transaction at a time; with every
// pooled connection free to write, waiting writers slept and retried in
// SQLite's busy handler, which serves them in no order (p99 above 800 ms
// at 64 clients, 409s once a wait outlasted busy_timeout). Here they wait
// in Go instead, in arrival order, each until its own context ends.
//
// The gate is golang.org/x/sync/semaphore, which is FIFO and takes a
// context; database/sql hands a freed connection to a random waiter, so a
// one-connection pool alone would not be fair.
//
// The holder of the gate owns the connection: it runs BEGIN IMMEDIATE and
// COMMIT as plain statements, so the transaction's statements are the
// pool's prepared statements (GORM's cache, on this pool only), prepared
// once for the life of the connection. A database/sql transaction would
// prepare them anew in every transaction. GORM's cache lock is safe here
// because only the gate's holder ever takes it, on an idle connection.
type sqliteWriter struct {
	gate  *semaphore.Weighted
	db    *gorm.DB
	sql   *sql.DB
	stmts *gorm.PreparedStmtDB
	// commits counts commits (under the gate) to kick the checkpointer.
	commits int
	kick    chan struct{}
	done    chan struct{}
	closing sync.Once
}

// checkpointEvery is how many commits the writer makes between WAL
// checkpoints. SQLite checkpoints in the committing connection by default
// (every 1,000 pages), copying pages back and syncing the file while every
// queued writer waits: half the write path's CPU time was in COMMIT. A
// read connection does it instead, in PASSIVE mode, beside the writer.
const checkpointEvery = 200

// newSQLiteWriter opens the write connection to the database at dsn. Its
// GORM handle is a session of db, so that callbacks (tests hook some)
// apply to writes as to reads.
func newSQLiteWriter(db *gorm.DB, dsn string) (*sqliteWriter, error) {
	sqlDB, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	if _, err := sqlDB.Exec("PRAGMA wal_autocheckpoint = 0"); err != nil {
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
	sw := &sqliteWriter{gate: semaphore.NewWeighted(1), db: w, sql: sqlDB, stmts: stmts,
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	go sw.checkpoint(readers)
	return sw, nil
}

// checkpoint copies the WAL back into the database file when kicked, on
// a read connection, until the writer closes. A checkpoint that fails
// (the file busy with another process's) is left to the next kick.
func (w *sqliteWriter) checkpoint(readers *sql.DB) {
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, _ = readers.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		cancel()
	}
}

// Name and Initialize make the writer a GORM plugin, which is how Open
// hands it to NewStore along with the read pool.
func (*sqliteWriter) Name() string              { return "cloudplane:sqlite-writer" }
func (*sqliteWriter) Initialize(*gorm.DB) error { return nil }

func writerOf(db *gorm.DB) *sqliteWriter {
	w, _ := db.Config.Plugins[(*sqliteWriter)(nil).Name()].(*sqliteWriter)
	return w
}

// run waits for its turn (or for ctx to end, returning ctx's error), then
// runs fn in one transaction on the write connection.
func (w *sqliteWriter) run(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if err := w.gate.Acquire(ctx, 1); err != nil {
		return err
	}
	defer w.gate.Release(1)
	tx := w.db.WithContext(ctx)
	committed := false
	defer func() { // also when fn panics
		if !committed {
			w.rollback()
		}
	}()
	// An interrupted BEGIN may have begun all the same: rollback sees to it.
	if err := tx.Exec("BEGIN IMMEDIATE").Error; err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	// A commit, once asked for, is not interrupted: its caller would not
	// know whether the change was made.
	if err := w.db.WithContext(context.WithoutCancel(ctx)).Exec("COMMIT").Error; err != nil {
		return err
	}
	committed = true
	if w.commits++; w.commits%checkpointEvery == 0 {
		select {
		case w.kick <- struct{}{}:
		default: // one is already due
		}
	}
	return nil
}

// rollback ends a failed transaction, even when its context has ended.
// SQLite may have rolled back already (an error can end a transaction);
// should the connection still be inside one after ROLLBACK, it is
// discarded, so that the next writer never starts inside it.
func (w *sqliteWriter) rollback() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.db.WithContext(ctx).Exec("ROLLBACK").Error
	conn, err := w.sql.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if c, ok := dc.(*sqlite3.SQLiteConn); ok && !c.AutoCommit() {
			return driver.ErrBadConn
		}
		return nil
	})
}

// close may be called more than once, as Store.Close may.
func (w *sqliteWriter) close() error {
	w.closing.Do(func() {
		close(w.done)
		w.stmts.Close()
	})
	return w.sql.Close()
}

// WriterStats reports the pool statistics of db's SQLite write
// connection; ok is false when db has none (PostgreSQL).
func WriterStats(db *gorm.DB) (stats sql.DBStats, ok bool) {
	w := writerOf(db)
	if w == nil {
		return sql.DBStats{}, false
	}
	return w.sql.Stats(), true
}
