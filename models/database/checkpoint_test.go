package database_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models/modelstest"
)

// TestWALStartsOverUnderSustainedWrites writes without pause from many
// goroutines, with short reads beside them, and checks that the WAL starts
// over instead of growing with every commit. Each change adds a page of
// 4,000 bytes, so a WAL that never starts over ends up larger than all of
// them together (64 MB); one that starts over stays a fraction of that.
func TestWALStartsOverUnderSustainedWrites(t *testing.T) {
	if !isSQLite() {
		t.Skip("PostgreSQL has no WAL file of the server's to keep short")
	}
	const writers, changes, pageBytes = 8, 2000, 4000
	restarts, size := writeWALPages(t, 512, writers, changes, pageBytes)
	t.Logf("%d restarts, WAL %d bytes", restarts, size)
	if restarts < 5 {
		t.Fatalf("the WAL started over %d times, want at least 5", restarts)
	}
	if limit := int64(writers * changes * pageBytes * 4 / 10); size > limit {
		t.Fatalf("WAL is %d bytes after %d restarts, want at most %d", size, restarts, limit)
	}
}

// writeWALPages has writers each write changes rows of pageBytes on a new
// database whose WAL starts over past restartAt frames, and returns the
// restarts and the WAL file's size.
func writeWALPages(t *testing.T, restartAt int64, writers, changes, pageBytes int) (restarts, walBytes int64) {
	t.Helper()
	dsn := modelstest.DSN(t)
	db := openDBAt(t, dsn)
	db.SetWALRestartFrames(restartAt)
	ctx := context.Background()
	if err := db.Write(ctx, func(tx *gorm.DB) error {
		return tx.Exec("CREATE TABLE wal_pages (id integer PRIMARY KEY, page blob NOT NULL)").Error
	}); err != nil {
		t.Fatal(err)
	}
	page := strings.Repeat("x", pageBytes)
	errs := make(chan error, writers+2)
	stop := make(chan struct{})
	var reading, writing sync.WaitGroup
	for range 2 {
		reading.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var ids []int64
				if err := db.Gorm().Raw("SELECT id FROM wal_pages WHERE id = 1").Scan(&ids).Error; err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range writers {
		writing.Go(func() {
			for range changes {
				if err := db.Write(ctx, func(tx *gorm.DB) error {
					return tx.Exec("INSERT INTO wal_pages (page) VALUES (?)", page).Error
				}); err != nil {
					errs <- fmt.Errorf("write: %w", err)
					return
				}
			}
		})
	}
	writing.Wait()
	close(stop)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int64
	if err := db.Gorm().Raw("SELECT count(*) FROM wal_pages").Scan(&n).Error; err != nil || n != int64(writers*changes) {
		t.Fatalf("rows: %d (%v), want %d", n, err, writers*changes)
	}
	stats, _ := db.WriterStats()
	path, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return stats.WALRestarts, info.Size()
}
