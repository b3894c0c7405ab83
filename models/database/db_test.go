package database_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// Write transactions take SQLite's write lock at BEGIN. Were they deferred,
// one that reads first (an account's lock, quota counts) would fail with
// "database is locked" when upgrading to write beside another writer,
// instead of queueing behind it for the busy timeout. So while a write
// transaction has only read, another connection must not get the lock.
func TestSQLiteWriteTransactionsBeginImmediate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "immediate.db")
	db := openDBAt(t, path)
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1) // BEGIN and ROLLBACK on one connection

	err = db.Write(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Raw("SELECT count(*) FROM accounts").Scan(&n).Error; err != nil {
			return err
		}
		_, err := other.ExecContext(ctx, "BEGIN IMMEDIATE")
		if err == nil {
			_, _ = other.ExecContext(ctx, "ROLLBACK")
			return errors.New("another connection took the write lock inside a write transaction")
		}
		if !strings.Contains(err.Error(), "locked") {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Both databases get a bounded pool: unbounded, a busy PostgreSQL replica
// opened a server process for most requests and several could exhaust
// max_connections; too small, SQLite requests queue for a connection
// behind a descheduled holder.
func TestConnectionPoolIsBounded(t *testing.T) {
	sqlDB, err := openDB(t).Gorm().DB()
	if err != nil {
		t.Fatal(err)
	}
	if n := sqlDB.Stats().MaxOpenConnections; n < 8 || n > 64 {
		t.Fatalf("pool of %d connections on %s", n, modelstest.Backend())
	}
}

// A filled pool holds every connection it may open, idle and ready, so
// the first burst of requests does not wait for sixteen to be opened (on
// PostgreSQL, sixteen server processes to start).
// On SQLite the pool is left to fill as it is used.
func TestFillPoolOpensEveryConnection(t *testing.T) {
	db := openDB(t)
	sqlDB, err := db.Gorm().DB()
	if err != nil {
		t.Fatal(err)
	}
	before := sqlDB.Stats().OpenConnections
	db.FillPool(context.Background())
	stats := sqlDB.Stats()
	if db.IsSQLite() {
		if stats.OpenConnections != before {
			t.Fatalf("FillPool opened SQLite connections: %d before, %d after", before, stats.OpenConnections)
		}
		return
	}
	if stats.OpenConnections != stats.MaxOpenConnections || stats.Idle != stats.MaxOpenConnections {
		t.Fatalf("after FillPool on %s: %d open, %d idle, of %d", modelstest.Backend(),
			stats.OpenConnections, stats.Idle, stats.MaxOpenConnections)
	}
}

// Several processes opening one new database together all succeed. The
// first to switch a new file to WAL wins; SQLite answers "database is
// locked" at once, without its busy wait, to another switching it at the
// same moment, and `cloudplane migrate` started three times together
// failed that way now and then. Connections of one process contend for
// the file's locks as processes do, so Opens in goroutines stand in for
// processes; rounds make the race likely (it lost about one open in a
// hundred).
func TestOpeningANewDatabaseTogether(t *testing.T) {
	const rounds, together = 40, 6
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "together.db")
		errs := make(chan error, together)
		var start sync.WaitGroup
		start.Add(1)
		for range together {
			go func() {
				start.Wait()
				db, err := database.Open(context.Background(), path)
				if err == nil {
					var mode string
					err = db.Gorm().Raw("PRAGMA journal_mode").Scan(&mode).Error
					if err == nil && mode != "wal" {
						err = fmt.Errorf("journal mode %q", mode)
					}
					_ = db.Close()
				}
				errs <- err
			}()
		}
		start.Done()
		for range together {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
