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
