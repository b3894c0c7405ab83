//go:build linux

package database_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"cloudplane/models/database"
)

// Using its own descriptors of a database's files (the commit watch maps
// the -shm header, the checkpointer syncs the database file) leaves this
// process's SQLite locks on them in place: closing such a descriptor
// would drop them all, and another process opening the database would
// then take it for unused and rebuild its -shm file under this one (a
// server died of SIGBUS so) or delete its WAL.
func TestOwnDescriptorsKeepSQLitesLocks(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks to read this process's locks from")
	}
	path := filepath.Join(t.TempDir(), "locked.db")
	db := openDBAt(t, path)
	v := dataVersion(t, db) // maps the -shm header
	db.SyncDatabaseFile()
	for _, f := range []string{path, path + "-shm"} {
		if !holdsLock(t, f) {
			t.Errorf("this process holds no lock on %s any more", filepath.Base(f))
		}
	}

	// A second DB of this process on the file, closed, leaves the
	// first's descriptors, and so its locks, alone.
	second := openDBAt(t, path)
	dataVersion(t, second)
	second.SyncDatabaseFile()
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-shm"} {
		if !holdsLock(t, f) {
			t.Errorf("closing a second DB on the file dropped this process's lock on %s", filepath.Base(f))
		}
	}

	shm := inode(t, path+"-shm")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), commitFromAnotherProcess+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the other process: %v: %s", err, out)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the other process's close deleted the WAL under this one: %v", err)
	}
	if now := inode(t, path+"-shm"); now != shm {
		t.Fatalf("the -shm file was re-created (inode %d, then %d)", shm, now)
	}
	if now := dataVersion(t, db); now == v {
		t.Fatal("the data version did not see the other process's commit")
	}
	var n int
	if err := db.Gorm().Raw("SELECT count(*) FROM settings WHERE name = 'from-another-process'").Scan(&n).Error; err != nil || n != 1 {
		t.Fatalf("the other process's row: %d, %v", n, err)
	}
}

// Once the last DB on a database closed, its held files stay closed: a
// checkpoint pass ending as the DB closes opens nothing that would leak.
func TestClosedDBOpensNoDescriptor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "closed.db")
	db := openDBAt(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := openDescriptors(t)
	db.SyncDatabaseFile()
	if after := openDescriptors(t); after != before {
		t.Fatalf("a sync after Close left %d descriptors open, %d before", after, before)
	}
}

// Many DBs of this process opening and closing one database at once,
// while one more stays open, leave that one its locks, and nothing open
// once all are closed: the last release closes the files before another
// DB of the database can take new ones (and SQLite locks beside them).
func TestHeldFilesUnderConcurrentOpensAndCloses(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks to read this process's locks from")
	}
	path := filepath.Join(t.TempDir(), "busy.db")
	openDBAt(t, path).Close() // migrated once
	before := openDescriptors(t)
	for round := range 10 {
		var kept *database.DB
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := database.Open(context.Background(), path)
				if err != nil {
					t.Error(err)
					return
				}
				db.DataVersion()
				db.SyncDatabaseFile()
				if i == round%8 {
					kept = db
					return
				}
				if err := db.Close(); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if kept == nil {
			t.FailNow()
		}
		for _, f := range []string{path, path + "-shm"} {
			if !holdsLock(t, f) {
				t.Fatalf("round %d: the DB left open holds no lock on %s", round, filepath.Base(f))
			}
		}
		if err := kept.Close(); err != nil {
			t.Fatal(err)
		}
		if after := openDescriptors(t); after != before {
			t.Fatalf("round %d: %d descriptors open after every DB closed, %d before", round, after, before)
		}
	}
}

func openDescriptors(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to count descriptors in")
	}
	return len(entries)
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// holdsLock reports whether this process holds a POSIX lock on the file
// at path, as /proc/locks lists them: "1: POSIX ADVISORY READ <pid>
// <major>:<minor>:<inode> <start> <end>".
func holdsLock(t *testing.T, path string) bool {
	t.Helper()
	ino := strconv.FormatUint(inode(t, path), 10)
	pid := strconv.Itoa(os.Getpid())
	f, err := os.Open("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 6 || fields[1] == "->" || fields[1] != "POSIX" {
			continue
		}
		id := strings.Split(fields[5], ":")
		if fields[4] == pid && len(id) == 3 && id[2] == ino {
			return true
		}
	}
	return false
}
