package database_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/handlers/testserver"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

var errRefused = errors.New("refused by the change itself")

// holdWriter starts a write that waits for release and then fails, so
// that the changes queued meanwhile form batches of their own. On
// PostgreSQL, where writes do not queue, it holds nothing.
func holdWriter(t *testing.T, db *database.DB) (release func()) {
	t.Helper()
	if !isSQLite() {
		return func() {}
	}
	held, free, result := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		result <- db.Write(context.Background(), func(*gorm.DB) error {
			close(held)
			<-free
			return errRefused
		})
	}()
	select {
	case <-held:
	case err := <-result:
		t.Fatalf("holder: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the holding write did not start within 30 s")
	}
	return func() {
		close(free)
		if err := <-result; !errors.Is(err, errRefused) {
			t.Errorf("holder: %v", err)
		}
	}
}

func isSQLite() bool { return modelstest.Backend() == "sqlite" }

// openDB opens a fresh, migrated database for one test, closed at its end.
func openDB(tb testing.TB) *database.DB {
	tb.Helper()
	return openDBAt(tb, modelstest.DSN(tb))
}

func openDBAt(tb testing.TB, dsn string) *database.DB {
	tb.Helper()
	db := modelstest.OpenDatabase(tb, dsn)
	if err := db.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return db
}

// waitQueued waits until n changes wait for the SQLite writer.
func waitQueued(t *testing.T, db *database.DB, n int) {
	t.Helper()
	testserver.Eventually(t, 30*time.Second, func() bool {
		stats, _ := db.WriterStats()
		return stats.Queued == n
	}, fmt.Sprintf("%d changes queued for the writer", n))
}

func createMarks(t *testing.T, db *database.DB) {
	t.Helper()
	err := db.Write(context.Background(), func(tx *gorm.DB) error {
		return tx.Exec("CREATE TABLE marks (n integer PRIMARY KEY)").Error
	})
	if err != nil {
		t.Fatal(err)
	}
}

func marks(t *testing.T, db *database.DB) []int {
	t.Helper()
	var got []int
	if err := db.Gorm().Raw("SELECT n FROM marks ORDER BY n").Scan(&got).Error; err != nil {
		t.Fatal(err)
	}
	return got
}

func mark(tx *gorm.DB, n int) error { return tx.Exec("INSERT INTO marks (n) VALUES (?)", n).Error }

// Many writers at once, some succeeding, some failing in every way a
// change can (an error, a constraint, a panic, its context ending while
// it waits or while it runs): exactly the succeeding changes are
// committed and every caller gets its own outcome. On SQLite they are
// queued behind one write and committed in batches; on PostgreSQL each is
// a transaction of its own and the outcomes are the same.
func TestBatchedWritesCommitExactlyTheSucceedingChanges(t *testing.T) {
	db := openDB(t)
	db.SetWriteBatchWork(time.Minute)
	createMarks(t, db)
	const clients = 120
	kinds := []string{"ok", "error", "duplicate", "panic", "queued-cancel", "running-cancel"}
	kind := func(i int) string { return kinds[i%len(kinds)] }
	change := func(i int, cancel context.CancelFunc) func(tx *gorm.DB) error {
		return func(tx *gorm.DB) error {
			if err := mark(tx, i); err != nil {
				return err
			}
			switch kind(i) {
			case "error":
				return errRefused
			case "duplicate":
				return mark(tx, i)
			case "panic":
				panic(fmt.Sprintf("change %d", i))
			case "running-cancel":
				cancel()
			}
			return nil
		}
	}
	release := holdWriter(t, db)
	errs := make([]error, clients)
	cancels := make([]context.CancelFunc, clients)
	var all, queuedCancel sync.WaitGroup
	for i := range clients {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		if kind(i) == "queued-cancel" && !isSQLite() {
			cancel() // nothing queues on PostgreSQL: it ends before the call
		}
		wg := &all
		if kind(i) == "queued-cancel" {
			wg = &queuedCancel
		}
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("panicked: %v", v)
				}
			}()
			errs[i] = db.Write(ctx, change(i, cancel))
		})
	}
	if isSQLite() {
		waitQueued(t, db, clients)
		for i := range clients {
			if kind(i) == "queued-cancel" {
				cancels[i]()
			}
		}
	}
	// While the writer is still held, the cancelled callers are answered.
	queuedCancel.Wait()
	release()
	all.Wait()
	for _, cancel := range cancels {
		cancel()
	}

	var want []int
	for i, err := range errs {
		switch kind(i) {
		case "ok":
			want = append(want, i)
			if err != nil {
				t.Errorf("change %d: %v (%v)", i, err, errors.Unwrap(err))
			}
		case "error":
			if !errors.Is(err, errRefused) {
				t.Errorf("failing change %d: %v, want its own error", i, err)
			}
		case "duplicate":
			if !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Errorf("duplicate change %d: %v, want %v", i, err, gorm.ErrDuplicatedKey)
			}
		case "panic":
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("change %d", i)) {
				t.Errorf("panicking change %d: %v, want its panic in its caller", i, err)
			}
		case "queued-cancel", "running-cancel":
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled change %d: %v, want context.Canceled", i, err)
			}
		}
	}
	if got := marks(t, db); !slices.Equal(got, want) {
		t.Errorf("committed %v\nwant exactly %v", got, want)
	}
	if stats, ok := db.WriterStats(); ok {
		if stats.LargestBatch < 2 || stats.Dropped < int64(clients/len(kinds)) || stats.Queued != 0 {
			t.Errorf("writer figures %+v: want batches, the queued cancellations dropped, none queued", stats)
		}
	}
}

// Changes queued one after another run in that order, even when several
// share a transaction.
func TestBatchedWritesRunInArrivalOrder(t *testing.T) {
	if !isSQLite() {
		t.Skip("PostgreSQL's writes do not queue: each is a transaction of its own")
	}
	db := openDB(t)
	db.SetWriteBatchWork(time.Minute)
	release := holdWriter(t, db)
	const clients = 150 // more than one batch holds
	var mu sync.Mutex
	var ran []int
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			err := db.Write(context.Background(), func(*gorm.DB) error {
				mu.Lock()
				defer mu.Unlock()
				ran = append(ran, i)
				return nil
			})
			if err != nil {
				t.Errorf("change %d: %v (%v)", i, err, errors.Unwrap(err))
			}
		})
		waitQueued(t, db, i+1)
	}
	release()
	wg.Wait()
	want := make([]int, clients)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(ran, want) {
		t.Errorf("ran in order %v", ran)
	}
	stats, _ := db.WriterStats()
	if stats.LargestBatch != 64 || stats.Commits < 3 {
		t.Errorf("writer figures %+v: want full batches of 64", stats)
	}
}

// When the COMMIT of a batch fails, no change of it was made and every
// caller in it is told so, although their own changes succeeded.
func TestFailedCommitFailsEveryChangeInTheBatch(t *testing.T) {
	if !isSQLite() {
		t.Skip("PostgreSQL commits each write alone: a failed COMMIT reaches only its own caller")
	}
	db := openDB(t)
	db.SetWriteBatchWork(time.Minute)
	createMarks(t, db)
	err := db.Write(context.Background(), func(tx *gorm.DB) error {
		// A deferred foreign key is checked at COMMIT.
		return tx.Exec("CREATE TABLE orphans (parent integer REFERENCES marks (n) DEFERRABLE INITIALLY DEFERRED)").Error
	})
	if err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, db)
	const clients = 9
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			errs[i] = db.Write(context.Background(), func(tx *gorm.DB) error {
				if i == clients/2 {
					return tx.Exec("INSERT INTO orphans (parent) VALUES (-1)").Error
				}
				return mark(tx, i)
			})
		})
	}
	waitQueued(t, db, clients)
	release()
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "foreign key constraint") {
			t.Errorf("change %d: %v, want the COMMIT's error", i, err)
		}
	}
	if got := marks(t, db); len(got) != 0 {
		t.Errorf("committed %v, want nothing", got)
	}
	// The writer goes on.
	if err := db.Write(context.Background(), func(tx *gorm.DB) error { return mark(tx, 100) }); err != nil {
		t.Fatal(err)
	}
	if got := marks(t, db); !slices.Equal(got, []int{100}) {
		t.Errorf("committed %v, want [100]", got)
	}
}
