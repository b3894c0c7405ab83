package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"cloudplane/models/database"
)

// migrate applies the pending migrations, or with --status lists every
// step and whether the database has run it, changing nothing.
func migrate(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("migrate")
	status := c.fs.Bool("status", false, "list applied and pending migrations; change nothing")
	if err := c.parse(args); err != nil {
		return err
	}
	return c.withDatabase(ctx, func(db *database.DB) error {
		if !*status {
			if err := db.Migrate(ctx); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			fmt.Fprintln(stdout, "migrations applied")
			return nil
		}
		steps, err := db.MigrationStatus(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, st := range steps {
			fmt.Fprintf(tw, "%s\t%s\n", st.ID, describeStep(st))
		}
		return tw.Flush()
	})
}

func describeStep(st database.MigrationState) string {
	switch {
	case !st.Applied:
		return "pending"
	case st.Unknown:
		return "applied by a newer cloudplane (unknown to this binary)"
	case st.AppliedAt == nil:
		return "applied (before migrations recorded their time)"
	}
	return "applied " + st.AppliedAt.UTC().Format(time.RFC3339)
}
