package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DefaultDatabase is where the embedded SQLite database lives when no
// --database is given.
const DefaultDatabase = "data/cloudplane.db"

// IsPostgres reports whether a --database value selects PostgreSQL.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database named by dsn: a postgres:// URL, or else
// a path to a SQLite file, created (with its folder) when missing. It pings
// before returning so that an unreachable database is reported at once.
func Open(ctx context.Context, dsn string) (*gorm.DB, error) {
	var db *gorm.DB
	var err error
	if IsPostgres(dsn) {
		// No GORM statement cache: its lock was held by a goroutine waiting
		// for a pool connection while connection holders waited for the
		// lock, which stopped a busy server for good. pgx caches prepared
		// statements per connection instead (its default exec mode), so a
		// transaction reuses them with no lock between connections.
		db, err = gorm.Open(postgres.Open(dsn), gormConfig())
	} else {
		db, err = openSQLite(dsn)
	}
	if err != nil {
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
		_ = sqlDB.Close()
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	return db, nil
}

func gormConfig() *gorm.Config {
	return &gorm.Config{
		// Unique violations read the same on both databases
		// (gorm.ErrDuplicatedKey), so models translate them once.
		TranslateError:         true,
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return dbTime(time.Now()) },
	}
}

// openSQLite opens the read pool, and beside it the one connection all
// writes go through (sqliteWriter), attached to the read pool for NewStore.
func openSQLite(path string) (*gorm.DB, error) {
	if path == "" {
		return nil, errors.New("empty database path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, err
		}
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
	dsn := "file:" + path + "?_busy_timeout=10000&_journal_mode=WAL&_foreign_keys=on" +
		"&_synchronous=NORMAL&_txlock=immediate&_cache_size=-2000"
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: sqliteDriver, DSN: dsn}), gormConfig())
	if err != nil {
		return nil, err
	}
	w, err := newSQLiteWriter(db, dsn, path)
	if err == nil {
		err = db.Use(w)
	}
	if err != nil {
		if sqlDB, e := db.DB(); e == nil {
			_ = sqlDB.Close()
		}
		return nil, err
	}
	return db, nil
}

// poolSize bounds the connections one process keeps to its database, and
// all of them are kept while in use. On PostgreSQL, database/sql's
// defaults (no bound, 2 kept idle) made a busy server open and close a
// connection, a server process, for most requests, and let a few replicas
// exhaust max_connections. On SQLite, readers never wait for each other in
// WAL mode, but a request waits for a free connection, and a goroutine
// that holds one may be descheduled; database/sql then hands freed
// connections to random waiters, which is what makes slow requests slow:
// under the benchmark, 16 connections waited 10 times less often than 8.
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
