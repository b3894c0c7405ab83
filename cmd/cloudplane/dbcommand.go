package main

import (
	"context"
	"flag"
	"fmt"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/webhooks/netguard"
)

// dbCommand is the preamble every operator command shares: its flags with
// --database, parsed from the command line and CLOUDPLANE_* variables,
// then the database opened for the command's work and closed after it.
type dbCommand struct {
	fs  *flag.FlagSet
	dsn *string
}

func newDBCommand(name string) dbCommand {
	fs := newFlags(name)
	return dbCommand{fs: fs, dsn: databaseFlag(fs)}
}

// parse parses args and fails unless every flag in names has a value.
func (c dbCommand) parse(args []string, names ...string) error {
	if err := parseFlags(c.fs, args); err != nil {
		return err
	}
	return required(c.fs, names...)
}

// withStore runs fn on the store of the database --database names, which
// must exist (a SQLite file is never created here), migrated first; the
// store is closed when fn returns.
func (c dbCommand) withStore(ctx context.Context, fn func(store *models.Store) error, opts ...models.Option) error {
	if err := existingDatabase(*c.dsn, "database"); err != nil {
		return err
	}
	db, err := openMigrated(ctx, *c.dsn)
	if err != nil {
		return err
	}
	store := models.NewStore(db, append([]models.Option{models.WithWebhookGuard(netguard.Guard{})}, opts...)...)
	defer store.Close()
	return fn(store)
}

// withDatabase runs fn on the database --database names, opened but not
// migrated, and closes it after.
func (c dbCommand) withDatabase(ctx context.Context, fn func(db *database.DB) error) error {
	db, err := database.Open(ctx, *c.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// openMigrated opens the database at dsn and brings its schema up to date.
func openMigrated(ctx context.Context, dsn string) (*database.DB, error) {
	db, err := database.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}
