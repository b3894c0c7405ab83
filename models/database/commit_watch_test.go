package database_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models/database"
)

// commitFromAnotherProcess is set in the environment of this test binary
// run again as a child: it commits one change to the SQLite file it names
// and exits (TestDataVersionSeesOtherProcesses).
const commitFromAnotherProcess = "CLOUDPLANE_TEST_COMMIT_TO"

func TestMain(m *testing.M) {
	if path := os.Getenv(commitFromAnotherProcess); path != "" {
		if err := commitOnce(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func commitOnce(path string) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("INSERT INTO settings (name, value) VALUES ('from-another-process', '1') " +
		"ON CONFLICT (name) DO UPDATE SET value = value || '1'")
	return err
}

func dataVersion(t *testing.T, db *database.DB) int64 {
	t.Helper()
	v, ok := db.DataVersion()
	if !ok {
		t.Fatal("SQLite's data version could not be read")
	}
	return v
}

// The data version stays while nothing commits and changes with every
// commit, whoever made it: this process's writer, another connection of
// this process, another process.
func TestDataVersionSeesOtherProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "watched.db")
	db := openDBAt(t, path)
	v := dataVersion(t, db)
	if again := dataVersion(t, db); again != v {
		t.Fatalf("data version moved from %d to %d with nothing committed", v, again)
	}
	if err := db.Gorm().WithContext(ctx).Exec("SELECT count(*) FROM settings").Error; err != nil {
		t.Fatal(err)
	}
	if again := dataVersion(t, db); again != v {
		t.Fatalf("a read moved the data version from %d to %d", v, again)
	}

	changed := func(what string) {
		t.Helper()
		now := dataVersion(t, db)
		if now == v {
			t.Fatalf("the data version did not change after %s", what)
		}
		v = now
	}
	err := db.Write(ctx, func(tx *gorm.DB) error {
		return tx.Exec("INSERT INTO settings (name, value) VALUES ('writer', '1')").Error
	})
	if err != nil {
		t.Fatal(err)
	}
	changed("a commit by the writer")

	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("INSERT INTO settings (name, value) VALUES ('other', '1')"); err != nil {
		t.Fatal(err)
	}
	changed("a commit by another connection")

	for i := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), commitFromAnotherProcess+"="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the other process: %v: %s", err, out)
		}
		changed(fmt.Sprintf("commit %d by another process", i+1))
	}

	// A full checkpoint that starts the WAL over is no commit, but what
	// comes after it is.
	if _, err := other.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	v = dataVersion(t, db)
	if _, err := other.Exec("UPDATE settings SET value = '2' WHERE name = 'other'"); err != nil {
		t.Fatal(err)
	}
	changed("a commit into a WAL started over")
}

// Under many writers and readers at once, a data version read before a
// change began never equals one read after it committed.
func TestDataVersionNeverMissesACommit(t *testing.T) {
	ctx := context.Background()
	db := openDBAt(t, filepath.Join(t.TempDir(), "busy.db"))
	const writers, changes, readers = 8, 40, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	for range readers { // readers contend with the writers' checks
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					db.DataVersion()
				}
			}
		}()
	}
	var writes sync.WaitGroup
	for w := range writers {
		writes.Add(1)
		go func() {
			defer writes.Done()
			for i := range changes {
				before, ok := db.DataVersion()
				err := db.Write(ctx, func(tx *gorm.DB) error {
					return tx.Exec("INSERT INTO settings (name, value) VALUES (?, '1')", fmt.Sprintf("w%d-%d", w, i)).Error
				})
				if err != nil {
					errs <- err
					return
				}
				after, okAfter := db.DataVersion()
				if ok && okAfter && after == before {
					errs <- fmt.Errorf("writer %d change %d: data version %d before and after its commit", w, i, after)
					return
				}
			}
		}()
	}
	writes.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
