package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// walSwitchWait bounds how long opening waits for other processes that
// are switching the same new file to WAL: the DSN's busy timeout.
const walSwitchWait = 10 * time.Second

// switchToWAL puts the SQLite file at path in WAL mode, once, before any
// pool connection opens. The mode is kept in the file, so every later
// connection finds it set. Switching a new file needs its exclusive lock,
// and SQLite answers "database is locked" at once, without waiting in the
// busy handler, to a connection that loses that race to another doing the
// same (the read-lock upgrade it would otherwise deadlock on): several
// processes opening one new database together (three `cloudplane
// migrate`, a server and its CLI) failed now and then. Here the loser
// waits and tries again until the file is in WAL mode.
func switchToWAL(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, walSwitchWait)
	defer cancel()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer db.Close()
	pause := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		switch {
		case err == nil && mode == "wal":
			return nil
		case err == nil:
			return fmt.Errorf("SQLite kept journal mode %q instead of WAL", mode)
		case !isBusy(err):
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("switching to WAL: %w", err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
