package database_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/handlers/testserver"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// Writes of one key that wait for its lock together commit in one
// transaction: the first, blocked on the row another connection holds,
// runs alone; the others queue behind it and share the next. A write
// refused by its change is answered and writes nothing; a write whose
// statement fails (a duplicate) gets that failure, and the others commit
// without it. Writes queue in arrival order, so either of the two writes
// of one value may be the duplicate.
func TestLockedWritesOfOneKeyCommitTogether(t *testing.T) {
	if isSQLite() {
		t.Skip("WriteAfterLock is PostgreSQL's")
	}
	dsn := modelstest.DSN(t)
	db := modelstest.OpenDatabase(t, dsn)
	for _, q := range []string{"CREATE TABLE locked_keys (id text PRIMARY KEY)", "INSERT INTO locked_keys VALUES ('k')",
		"CREATE TABLE locked_items (v int PRIMARY KEY)"} {
		if err := db.Gorm().Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	release := modelstest.HoldRowLock(t, dsn, "locked_keys", "k")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const writes, refused, duplicate = 20, 7, 12 // 12 inserts 11's value
	errs, txids := make([]error, writes), make([]int64, writes)
	var wg sync.WaitGroup
	start := func(i int) {
		wg.Go(func() {
			lock := database.Statement{SQL: "SELECT id FROM locked_keys WHERE id = $1 FOR UPDATE", Args: []any{"k"}}
			v := i
			if i == duplicate {
				v = i - 1
			}
			errs[i] = db.WriteAfterLock(ctx, "k", lock, func(row database.Row) (database.Statement, error) {
				var id string
				if err := row.Scan(&id); err != nil {
					return database.Statement{}, err
				}
				if i == refused {
					return database.Statement{}, errRefused
				}
				return database.Statement{SQL: "INSERT INTO locked_items VALUES ($1) RETURNING txid_current()", Args: []any{v}}, nil
			}, func(row database.Row) error { return row.Scan(&txids[i]) })
		})
	}
	start(0)
	testserver.Eventually(t, 30*time.Second, func() bool { return lockWaiters(t, db) == 1 }, "the first write waiting for the lock")
	for i := 1; i < writes; i++ {
		start(i)
	}
	testserver.Eventually(t, 30*time.Second, func() bool { return db.QueuedLockedWrites("k") == writes-1 },
		fmt.Sprintf("%d writes queued", writes-1))
	release()
	wg.Wait()

	committed := map[int64]int{}
	if (errs[duplicate] == nil) == (errs[duplicate-1] == nil) {
		t.Errorf("writes %d and %d of one value: %v and %v, want one duplicate", duplicate-1, duplicate, errs[duplicate-1], errs[duplicate])
	}
	for i, err := range errs {
		switch {
		case i == refused:
			if !errors.Is(err, errRefused) {
				t.Errorf("write %d: %v, want its change's refusal", i, err)
			}
		case (i == duplicate || i == duplicate-1) && err != nil:
			if !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Errorf("write %d: %v, want a duplicate key", i, err)
			}
		case err != nil:
			t.Errorf("write %d: %v", i, err)
		default:
			committed[txids[i]]++
		}
	}
	if len(committed) != 2 || committed[txids[0]] != 1 {
		t.Errorf("writes per transaction %v, want the first alone and %d others together", committed, writes-3)
	}
	var n int64
	if err := db.Gorm().Raw("SELECT count(*) FROM locked_items").Scan(&n).Error; err != nil || n != writes-2 {
		t.Errorf("%d rows (%v), want %d", n, err, writes-2)
	}
}

// lockWaiters counts the connections waiting for a lock in this database.
func lockWaiters(t *testing.T, db *database.DB) int {
	var n int
	err := db.Gorm().Raw("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").
		Scan(&n).Error
	if err != nil {
		t.Fatal(err)
	}
	return n
}
