package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
	"gorm.io/gorm"
)

// Write runs fn in one transaction. On SQLite it waits its turn for the
// one write connection (sqliteWriter) and returns ctx's error if ctx ends
// first, or while fn runs. Other errors come back as the driver gave
// them: translating them is the caller's.
//
// fn must use only tx: a read through Read inside it would hold one
// connection while waiting for another, and a nested write would wait for
// itself. fn may run more than once (on PostgreSQL, again on a fresh
// connection when the pooled one was dead), so it only assigns what it
// leaves outside tx.
func (db *DB) Write(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if db.writer != nil {
		return db.writer.run(ctx, fn)
	}
	var fnErr error
	run := func(tx *gorm.DB) error { fnErr = fn(tx); return fnErr }
	err := db.gorm.WithContext(ctx).Transaction(run)
	// A pooled connection that turns out dead (pgx closes one whose
	// context ended mid-query; database/sql may hand it out once more)
	// is not the caller's failure. ErrBadConn promises nothing was sent,
	// so the transaction runs again on another connection.
	for retry := 0; retry < 2 && errors.Is(err, driver.ErrBadConn) && ctx.Err() == nil; retry++ {
		err = db.gorm.WithContext(ctx).Transaction(run)
	}
	if err != nil && fnErr == nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// fn succeeded, but the context ended its transaction: database/sql
		// rolled it back ("transaction has already been committed or
		// rolled back") or pgx closed the connection mid-COMMIT ("conn
		// closed"). The caller's context is the cause.
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// Read returns a session for queries outside a transaction. Nothing
// writes through it. Inside ReadTogether it is the connection held.
func (db *DB) Read(ctx context.Context) *gorm.DB {
	if conn, ok := ctx.Value(heldReadsKey{}).(*gorm.DB); ok {
		return conn.WithContext(ctx)
	}
	return db.gorm.WithContext(ctx)
}

type heldReadsKey struct{}

// ReadTogether runs fn's reads (through Read) on one connection of the
// pool. On SQLite a connection keeps its page cache from one statement to
// the next unless a write commits in between, while a statement on another
// connection of the pool starts cold: reads that pass over the same rows
// (the ticket list counts comments, then reads them) find them cached.
// PostgreSQL caches for every connection, so there fn runs as it is:
// holding a connection while a write inside fn waits for another (a secret
// made on first use) is how pools deadlock. SQLite's writes never take one
// from the readers' pool.
func (db *DB) ReadTogether(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.writer == nil {
		return fn(ctx)
	}
	return db.gorm.WithContext(ctx).Connection(func(conn *gorm.DB) error {
		return fn(context.WithValue(ctx, heldReadsKey{}, conn))
	})
}

// withConn runs fn on one connection of db's pool, held until fn returns.
func withConn(ctx context.Context, db *gorm.DB, fn func(conn *sql.Conn) error) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}

// Prepare returns query prepared on the read pool, kept for the life of
// db (statements.go).
func (db *DB) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.stmts.prepare(ctx, query)
}

// WroteLarge tells the SQLite writer that a large value of n bytes was
// just committed, so that the WAL is copied back soon enough (checkpoint.go).
// It does nothing on PostgreSQL.
func (db *DB) WroteLarge(n int) {
	if db.writer != nil {
		db.writer.wroteLarge(n)
	}
}

// Gorm is the read pool's handle, for queries built by the caller, and for
// wiring (health checks, tests). Writes go through Write.
func (db *DB) Gorm() *gorm.DB { return db.gorm }

// IsSQLite reports whether db is SQLite (else PostgreSQL).
func (db *DB) IsSQLite() bool { return db.gorm.Dialector.Name() == "sqlite" }

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error {
	sqlDB, err := db.gorm.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// Close closes the database. It may be called more than once.
func (db *DB) Close() error {
	sqlDB, err := db.gorm.DB()
	if err != nil {
		return err
	}
	db.stmts.close()
	if db.commits != nil {
		db.commits.close()
	}
	if db.writer != nil {
		_ = db.writer.close()
	}
	err = sqlDB.Close()
	if db.held != nil {
		// After every connection of this DB: see heldFiles.
		db.release.Do(db.held.release)
	}
	return err
}

// IsConflict recognises lost races that a retry can win: PostgreSQL
// serialization failures and deadlocks. Waiting too long for a lock is
// not one (IsBusy): nothing raced, someone else simply held the lock.
func IsConflict(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 40001") ||
		strings.Contains(msg, "SQLSTATE 40P01")
}

// IsBusy recognises a write that gave up waiting for a lock another
// connection or process held: SQLite's busy timeout running out (another
// process, such as a CLI command or a backup, holding the write lock), and
// PostgreSQL's lock_timeout (55P03) and statement_timeout (57014, also a
// cancelled query). The change was not made and the same request may
// succeed once the lock is free, so the domain answers it as unavailable,
// not as a conflict.
func IsBusy(err error) bool {
	if err == nil {
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "database table is locked") ||
		strings.Contains(msg, "SQLSTATE 55P03") ||
		strings.Contains(msg, "SQLSTATE 57014")
}
