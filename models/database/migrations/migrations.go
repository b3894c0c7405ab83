// Package migrations is the history of cloudplane's database schema: one
// SQL file per step and dialect, embedded in the binary and applied in
// order by database.Migrate, each once, in its own transaction, under a lock
// that lets any number of processes migrate at once.
//
// A step that has been released never changes: a database created a year
// ago has run it as it was then. To change the schema, add a step:
//
//  1. Write sqlite/NNNN_what.sql and postgres/NNNN_what.sql, NNNN being
//     the next number, the same name in both folders. Do not write BEGIN
//     or COMMIT: the runner wraps the step in a transaction.
//  2. On SQLite, anything ALTER TABLE cannot do (a constraint, a changed
//     column) is a table rebuild, as in sqlite/0002_constraints.sql:
//     create <table>_new, copy the rows, drop the table, rename, recreate
//     its indexes. The runner turns foreign keys off around every step and
//     runs PRAGMA foreign_key_check before committing.
//  3. Change the GORM struct to match. TestStructsMatchSchema fails while
//     the structs and the migrated schema disagree.
//  4. Rows the new constraints refuse must be cleaned up by the step or
//     refused with a message that says which rows (see 0002).
//  5. Once the step is final, add both files' hashes to released.sha256
//     (sha256sum's format); TestReleasedStepsNeverChange fails until then,
//     and whenever a released step's SQL changes.
//
// If the step is needed for an upgrade test, add a fixture as
// models/testdata/README.md describes.
package migrations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// Dialects are the folders, named as GORM's dialectors name themselves.
var Dialects = []string{"sqlite", "postgres"}

// Step is one migration: its ID (the file name without .sql, such as
// 0001_initial) and its SQL for one dialect.
type Step struct {
	ID  string
	SQL string
}

// Steps returns the dialect's steps in order.
func Steps(dialect string) ([]Step, error) {
	names, err := fs.Glob(files, dialect+"/*.sql")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no migrations for dialect %q", dialect)
	}
	steps := make([]Step, 0, len(names))
	for i, name := range names { // fs.Glob sorts: 0001 before 0002
		sql, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		id := strings.TrimSuffix(path.Base(name), ".sql")
		if want := fmt.Sprintf("%04d_", i+1); !strings.HasPrefix(id, want) {
			return nil, fmt.Errorf("migration %s: want a name starting %s (steps are numbered without gaps)", name, want)
		}
		steps = append(steps, Step{ID: id, SQL: string(sql)})
	}
	return steps, nil
}

// Hash identifies the whole history: it changes when a step is added (or,
// wrongly, edited). Tests name their migrated template databases by it.
func Hash() string {
	h := sha256.New()
	_ = fs.WalkDir(files, ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))
}
