package modelstest

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cloudplane/models/database"
)

// HoldWriteLockFromProcess has another process, the sqlite3 shell, hold the write
// lock of the SQLite database at path (BEGIN IMMEDIATE) until release is
// called or the test ends: what a CLI command or a backup does to a
// running server. The test is skipped where no sqlite3 shell is
// installed.
func HoldWriteLockFromProcess(tb testing.TB, path string) (release func()) {
	tb.Helper()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		tb.Skip("no sqlite3 shell on PATH to hold the database's write lock")
	}
	cmd := exec.Command(shell, path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	if _, err := io.WriteString(stdin, "PRAGMA busy_timeout = 10000;\nBEGIN IMMEDIATE;\nSELECT 'held';\n"); err != nil {
		tb.Fatal(err)
	}
	held := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "held" {
				held <- true
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		held <- false
	}()
	select {
	case ok := <-held:
		if !ok {
			_ = cmd.Wait()
			tb.Fatalf("sqlite3 did not take the write lock: %s", stderr.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		tb.Fatalf("sqlite3 did not take the write lock in time: %s", stderr.String())
	}
	done := false
	release = func() {
		if done {
			return
		}
		done = true
		_, _ = io.WriteString(stdin, "ROLLBACK;\n.quit\n")
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("sqlite3 holding the lock: %v: %s", err, stderr.String())
		}
	}
	tb.Cleanup(release)
	return release
}

// HoldRowLock has another connection to the PostgreSQL database at dsn
// lock the row of table with id (SELECT ... FOR UPDATE in an open
// transaction), as a long transaction of another replica would, until
// release is called or the test ends.
func HoldRowLock(tb testing.TB, dsn, table, id string) (release func()) {
	tb.Helper()
	db := OpenDatabase(tb, dsn)
	tx := db.Gorm().Begin()
	if tx.Error != nil {
		tb.Fatal(tx.Error)
	}
	if err := tx.Exec("SELECT id FROM "+table+" WHERE id = ? FOR UPDATE", id).Error; err != nil {
		tb.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback().Error
		}
	}
	tb.Cleanup(release)
	return release
}

// LockWaitDSN is dsn as a server that gives up waiting for a lock soon
// opens it: on PostgreSQL with lock_timeout at 300 ms (a runtime
// parameter pgx passes on); SQLite waits its busy timeout, 10 s.
func LockWaitDSN(dsn string) string {
	if database.IsPostgres(dsn) {
		return dsn + "&lock_timeout=300"
	}
	return dsn
}

// HoldAccountWrites keeps the writes of the account with accountID
// waiting until release: on SQLite another process holds the database's
// write lock (HoldWriteLockFromProcess), on PostgreSQL another connection
// the account's row (HoldRowLock), which every quota-checked write locks.
func HoldAccountWrites(tb testing.TB, dsn, accountID string) (release func()) {
	tb.Helper()
	if database.IsPostgres(dsn) {
		return HoldRowLock(tb, dsn, "accounts", accountID)
	}
	return HoldWriteLockFromProcess(tb, dsn)
}
