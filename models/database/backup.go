package database

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Backup writes a consistent copy of a live SQLite database to the file
// to, then checks the copy's integrity. VACUUM INTO reads one snapshot of
// the database, so writers go on while it runs and the copy is exactly the
// database as of one commit; it is also compacted. The copy is written to
// a temporary file of its own beside the final name (so backups to one
// name at once do not meet) and renamed into place only once it has
// passed the check, so a failed or interrupted backup never leaves a file
// that looks complete. A file at to is never overwritten: of backups to
// one name at once, the first to finish names the file and the others are
// refused. Temporary files an interrupted backup left behind are removed
// by the next backup into the folder once they are stalePartial old.
func (db *DB) Backup(ctx context.Context, to string) error {
	if !db.IsSQLite() {
		return errors.New("backup copies SQLite databases; for PostgreSQL use pg_dump (see the README)")
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%s already exists; choose a new file", to)
	}
	dir := filepath.Dir(to)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	removeStalePartials(dir)
	// VACUUM INTO accepts an empty file, so the unique name CreateTemp
	// reserves is the one it writes.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(to)+".*"+partialSuffix)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	partial := tmp.Name()
	if err := tmp.Close(); err != nil {
		_ = os.Remove(partial)
		return fmt.Errorf("backup: %w", err)
	}
	if err := writeCheckedCopy(ctx, db.gorm, partial); err != nil {
		_ = os.Remove(partial)
		return err
	}
	// A hard link names the copy only if nothing has the name yet, so a
	// backup that finished first (or any file made meanwhile) is never
	// replaced, as a rename would.
	err = nameOnce(partial, to)
	_ = os.Remove(partial)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s already exists (made while this backup ran); choose a new file", to)
	case err != nil:
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// nameOnce gives the file at partial the name to, unless to exists. A hard
// link does that in one step; where the filesystem has none, an exclusive
// create reserves the name and a rename puts the copy in its place.
func nameOnce(partial, to string) error {
	err := os.Link(partial, to)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_ = f.Close()
	return os.Rename(partial, to)
}

// partialSuffix ends the names of backups being written.
const partialSuffix = ".partial"

// stalePartial is how long a temporary backup file goes unwritten before
// it counts as left by an interrupted backup: one still running writes it
// or checks it well within that.
const stalePartial = 6 * time.Hour

// removeStalePartials deletes the temporary files of interrupted backups
// in dir; each is a whole copy of the database.
func removeStalePartials(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, partialSuffix) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > stalePartial {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// writeCheckedCopy writes the database into the empty file path and
// checks the copy.
func writeCheckedCopy(ctx context.Context, db *gorm.DB, path string) error {
	if err := db.WithContext(ctx).Exec("VACUUM INTO ?", path).Error; err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return CheckIntegrity(ctx, path)
}

// CheckIntegrity opens the SQLite file at path read-only and runs SQLite's
// integrity and foreign key checks on it.
func CheckIntegrity(ctx context.Context, path string) error {
	db, err := gorm.Open(sqlite.Open("file:"+path+"?mode=ro"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	var problems []string
	if err := db.WithContext(ctx).Raw("PRAGMA integrity_check").Scan(&problems).Error; err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("integrity check of %s failed: %s", path, strings.Join(problems, "; "))
	}
	var orphans []map[string]any
	if err := db.WithContext(ctx).Raw("PRAGMA foreign_key_check").Scan(&orphans).Error; err != nil {
		return fmt.Errorf("foreign key check of %s: %w", path, err)
	}
	if len(orphans) > 0 {
		return fmt.Errorf("foreign key check of %s found %d rows that reference missing rows", path, len(orphans))
	}
	return nil
}
