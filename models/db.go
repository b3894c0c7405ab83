package models

import (
	"context"
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
	cfg := &gorm.Config{
		// Unique violations read the same on both databases
		// (gorm.ErrDuplicatedKey), so models translate them once.
		TranslateError:         true,
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		PrepareStmt:            true,
		NowFunc:                func() time.Time { return dbTime(time.Now()) },
	}
	var db *gorm.DB
	var err error
	if IsPostgres(dsn) {
		db, err = gorm.Open(postgres.Open(dsn), cfg)
	} else {
		db, err = openSQLite(dsn, cfg)
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
	if IsPostgres(dsn) {
		// database/sql keeps 2 idle connections by default: under concurrent
		// load (API requests, webhook workers) every other transaction would
		// open a connection, and PostgreSQL forks a backend for each.
		sqlDB.SetMaxIdleConns(32)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	return db, nil
}

func openSQLite(path string, cfg *gorm.Config) (*gorm.DB, error) {
	if path == "" {
		return nil, errors.New("empty database path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, err
		}
	}
	// WAL lets readers run beside the writer; busy_timeout queues writers
	// instead of failing them; _txlock=immediate takes the write lock at
	// BEGIN so two transactions never deadlock upgrading read locks; NORMAL
	// sync is durable in WAL mode except for the last commits on power loss.
	dsn := "file:" + path + "?_busy_timeout=10000&_journal_mode=WAL&_foreign_keys=on" +
		"&_synchronous=NORMAL&_txlock=immediate&_cache_size=-16000"
	db, err := gorm.Open(sqlite.Open(dsn), cfg)
	if err != nil {
		return nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(8)
	sqlDB.SetMaxIdleConns(8)
	sqlDB.SetConnMaxIdleTime(0)
	return db, nil
}
