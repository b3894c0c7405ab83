// Package database is cloudplane's storage engine: it opens SQLite and
// PostgreSQL, runs SQLite's writes through one connection in turn with
// group commit, bounds SQLite's lock waits by the caller's deadline, keeps
// prepared statements and the WAL short, migrates the schema
// (migrations/), and backs up and copies databases. It knows no domain
// rule: models receives a *DB and keeps the rules.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DefaultPath is where the embedded SQLite database lives when no
// --database is given.
const DefaultPath = "data/cloudplane.db"

// IsPostgres reports whether a --database value selects PostgreSQL.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// DB is an open database: the pool reads go through and, on SQLite, the
// one connection every write goes through in turn (sqliteWriter).
// PostgreSQL has no writer: its writers run side by side, kept apart by
// row locks and constraints, which also hold between replicas; only
// creates of one account that wait together share a transaction
// (WriteAfterLock, locked_write.go).
type DB struct {
	gorm    *gorm.DB
	writer  *sqliteWriter // nil on PostgreSQL
	commits *commitWatch  // nil on PostgreSQL
	held    *heldFiles    // nil on PostgreSQL
	release sync.Once     // of held
	stmts   *statements
	locked  lockedGroups // PostgreSQL's WriteAfterLock queues
}

// Open connects to the database named by dsn: a postgres:// URL, or else
// a path to a SQLite file, created (with its folder) when missing. It pings
// before returning so that an unreachable database is reported at once.
// It does not migrate: call Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	var db *gorm.DB
	var w *sqliteWriter
	var commits *commitWatch
	var held *heldFiles
	var err error
	if IsPostgres(dsn) {
		// No GORM statement cache: its lock, held by a goroutine waiting
		// for a pool connection while holders waited for the lock, stopped
		// a busy server for good. pgx caches prepared statements per
		// connection instead (its default exec mode).
		db, err = gorm.Open(postgres.Open(dsn), gormConfig())
	} else {
		held = holdFiles(dsn)
		db, w, err = openSQLite(ctx, dsn, held)
		commits = newCommitWatch(sqliteDSN(dsn), dsn, held)
	}
	if err != nil {
		if held != nil {
			held.release()
		}
		// gorm.Open already dials PostgreSQL; a failure there is the server
		// not answering, reported like a failed ping.
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sizePool(sqlDB, IsPostgres(dsn))
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		if w != nil {
			_ = w.close()
		}
		_ = sqlDB.Close()
		if held != nil {
			held.release()
		}
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	return &DB{gorm: db, writer: w, commits: commits, held: held, stmts: newStatements(sqlDB)}, nil
}

func gormConfig() *gorm.Config {
	return &gorm.Config{
		// Unique violations read the same on both databases
		// (gorm.ErrDuplicatedKey), so models translate them once. Times
		// are stored as models stores them: UTC, in microseconds.
		TranslateError:         true,
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	}
}

// openSQLite opens the read pool, and beside it the one connection all
// writes go through (sqliteWriter).
func openSQLite(ctx context.Context, path string, held *heldFiles) (*gorm.DB, *sqliteWriter, error) {
	if path == "" {
		return nil, nil, errors.New("empty database path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, nil, err
		}
	}
	if err := switchToWAL(ctx, path); err != nil {
		return nil, nil, err
	}
	// WAL lets readers run beside the writer; busy_timeout is a safety net
	// for other processes writing the file (CLI commands), as this one's
	// writers queue in Go; _txlock=immediate takes the write lock at BEGIN
	// (for transactions outside the writer, such as migrations) so two
	// transactions never deadlock upgrading read locks; NORMAL
	// sync is durable in WAL mode except for the last commits on power loss.
	// Each connection has its own page cache, so its size times the pool's
	// is what SQLite may hold in memory: 2 MB (SQLite's default) each; the
	// operating system caches the file beneath.
	dsn := sqliteDSN(path)
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: sqliteDriver, DSN: dsn}), gormConfig())
	if err != nil {
		return nil, nil, err
	}
	w, err := newSQLiteWriter(db, dsn, path, held)
	if err != nil {
		if sqlDB, e := db.DB(); e == nil {
			_ = sqlDB.Close()
		}
		return nil, nil, err
	}
	return db, w, nil
}

func sqliteDSN(path string) string {
	return "file:" + path + "?_busy_timeout=10000&_journal_mode=WAL&_foreign_keys=on" +
		"&_synchronous=NORMAL&_txlock=immediate&_cache_size=-2000"
}

// poolSize bounds the connections one process keeps to its database, and
// all of them are kept while in use. On PostgreSQL, database/sql's
// defaults (no bound, 2 kept idle) made a busy server open and close a
// connection, a server process, for most requests, and let a few replicas
// exhaust max_connections. On SQLite, a request waits for a free
// connection behind holders that may be descheduled, and database/sql
// hands freed ones to random waiters: 16 kept those waits rare where 8
// did not (docs/performance.md).
const poolSize = 16

func sizePool(db *sql.DB, postgres bool) {
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	if postgres {
		// A quiet replica closes what it does not use; SQLite's
		// connections cost no server process.
		db.SetConnMaxIdleTime(5 * time.Minute)
	}
}

// FillPool opens every connection of a PostgreSQL pool at once, before
// the first request needs one: each is a server process to start and a
// catalog cache to fill, and a server that met its first burst with an
// empty pool started sixteen of them under load, the first seconds' POST
// p99 at 64 connections twice that of the seconds after
// (docs/performance.md). It is for a server about to serve: it holds the
// whole pool while it waits, for at most fillTimeout. A connection that
// fails to open is left to be opened on demand, as before. SQLite's pool
// is left to fill as it is used: its connections are files, opened in
// microseconds, and each keeps a page cache of its own.
func (db *DB) FillPool(ctx context.Context) {
	sqlDB, err := db.gorm.DB()
	if err != nil || db.IsSQLite() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, fillTimeout)
	defer cancel()
	conns := make([]*sql.Conn, poolSize)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			if c, err := sqlDB.Conn(ctx); err == nil {
				if c.PingContext(ctx) == nil {
					conns[i] = c
				} else {
					_ = c.Close()
				}
			}
		})
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			_ = c.Close() // back to the idle pool
		}
	}
}

// fillTimeout bounds FillPool, as Open's ping is bounded: a server that
// answers slowly is reported by the requests that meet it, not by a
// start that never ends.
const fillTimeout = 5 * time.Second
