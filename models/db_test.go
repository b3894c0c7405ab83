package models

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gorm.io/gorm"
)

// Write transactions take SQLite's write lock at BEGIN. Were they deferred,
// one that reads first (lockAccount, quota counts) would fail with
// "database is locked" when upgrading to write beside another writer,
// instead of queueing behind it for the busy timeout. So while a write
// transaction has only read, another connection must not get the lock.
func TestSQLiteWriteTransactionsBeginImmediate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "immediate.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	defer s.Close()
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1) // BEGIN and ROLLBACK on one connection

	err = s.write(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Account{}).Count(&n).Error; err != nil {
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
