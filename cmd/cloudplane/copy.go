package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"cloudplane/models/database"
)

// copyCmd moves an installation from SQLite to PostgreSQL: both are
// migrated to this version's schema, then every table is copied in one
// transaction and its row count checked.
func copyCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("copy")
	from := fs.String("from", "", "the SQLite database file to copy")
	to := fs.String("to", "", "a fresh postgres:// database to copy into")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := required(fs, "from", "to"); err != nil {
		return err
	}
	if database.IsPostgres(*from) || !database.IsPostgres(*to) {
		return errors.New("copy goes from a SQLite file (--from) to a postgres:// URL (--to)")
	}
	if err := existingDatabase(*from, "from"); err != nil {
		return err
	}
	for _, dsn := range []string{*from, *to} {
		db, err := database.Open(ctx, dsn)
		if err != nil {
			return err
		}
		err = db.Migrate(ctx)
		_ = db.Close()
		if err != nil {
			return fmt.Errorf("migrate %s: %w", redactDSN(dsn), err)
		}
	}
	target, err := database.Open(ctx, *to)
	if err != nil {
		return err
	}
	defer target.Close()
	counts, err := database.CopySQLiteToPostgres(ctx, *from, target)
	if err != nil {
		return err
	}
	var total int64
	for _, c := range counts {
		fmt.Fprintf(stdout, "%-24s %d rows\n", c.Table, c.Rows)
		total += c.Rows
	}
	fmt.Fprintf(stdout, "copied %d rows in %d tables to %s; row counts match\n", total, len(counts), redactDSN(*to))
	return nil
}
