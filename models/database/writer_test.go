package database_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"gorm.io/gorm"
)

// A write that panics, or whose context ends inside its transaction,
// leaves nothing behind: its change is rolled back and the next write
// (on SQLite, on the same connection) starts a transaction of its own.
func TestFailedWritesLeaveTheWriterUsable(t *testing.T) {
	db := openDB(t)
	createMarks(t, db)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the write's panic was swallowed")
			}
		}()
		_ = db.Write(context.Background(), func(tx *gorm.DB) error {
			if err := mark(tx, 1); err != nil {
				return err
			}
			panic("in the transaction")
		})
	}()
	ctx, cancel := context.WithCancel(context.Background())
	err := db.Write(ctx, func(tx *gorm.DB) error {
		if err := mark(tx, 2); err != nil {
			return err
		}
		cancel()
		return tx.Exec("SELECT 1").Error
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write: %v", err)
	}
	if err := db.Write(context.Background(), func(tx *gorm.DB) error { return mark(tx, 3) }); err != nil {
		t.Fatal(err)
	}
	if got := marks(t, db); !slices.Equal(got, []int{3}) {
		t.Fatalf("committed %v, want only the last write's [3]", got)
	}
}

// The writer's page cache is memory the server holds once SQLite has
// filled it, whatever the writes touch: it stays within 4 MiB, so that a
// server under sustained writes stays within its 64 MiB (issue 24).
func TestWriterPageCacheIsBounded(t *testing.T) {
	if !isSQLite() {
		t.Skip("SQLite's page cache")
	}
	db := openDB(t)
	var size int
	if err := db.Write(context.Background(), func(tx *gorm.DB) error {
		return tx.Raw("PRAGMA cache_size").Row().Scan(&size)
	}); err != nil {
		t.Fatal(err)
	}
	// Negative sizes are KiB; positive ones pages (of 4 KiB here).
	if kib := max(-size, size*4); kib > 4<<10 || size == 0 {
		t.Errorf("the writer's cache_size is %d: more than 4 MiB", size)
	}
}
