package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"cloudplane/models/database"
)

// existingDatabase refuses a SQLite file that does not exist, for every
// command but serve and migrate: opening would create an empty database
// (the default path is relative to the working directory), and the
// command would then answer as if the server's had no such user. The
// message names the absolute path looked for and how to name another.
// flagName is the flag that named the file.
func existingDatabase(dsn, flagName string) error {
	if database.IsPostgres(dsn) {
		return nil
	}
	_, err := os.Stat(dsn)
	if err == nil {
		return nil
	}
	where := dsn
	if abs, absErr := filepath.Abs(dsn); absErr == nil {
		where = abs
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("database %s: %w", where, err)
	}
	how := "--" + flagName
	if flagName == "database" {
		how += " (or CLOUDPLANE_DATABASE)"
	}
	return fmt.Errorf("no database at %s: point %s at the server's SQLite file or postgres:// URL "+
		"(this command does not create one; `cloudplane serve` or `cloudplane migrate` does)", where, how)
}
