package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"cloudplane/models/database"
)

// backupCmd writes a consistent, checked copy of a live SQLite database.
func backupCmd(ctx context.Context, args []string, stdout io.Writer) error {
	c := newDBCommand("backup")
	to := c.fs.String("to", "", "file to write the copy to (must not exist)")
	if err := c.parse(args, "to"); err != nil {
		return err
	}
	if database.IsPostgres(*c.dsn) {
		return errors.New("backup copies SQLite databases; for PostgreSQL use pg_dump (see the README)")
	}
	if err := existingDatabase(*c.dsn, "database"); err != nil {
		return err
	}
	return c.withDatabase(ctx, func(db *database.DB) error {
		if err := db.Backup(ctx, *to); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "backed up %s to %s (integrity checked)\n", *c.dsn, *to)
		return nil
	})
}

// backupFlags configures scheduled backups in serve.
type backupFlags struct {
	dir   string
	every time.Duration
	keep  int
}

func (b *backupFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.dir, "backup-dir", "", "take scheduled SQLite backups into this folder; off when empty")
	fs.DurationVar(&b.every, "backup-every", 24*time.Hour, "time between scheduled backups")
	fs.IntVar(&b.keep, "backup-keep", 7, "scheduled backups to keep; older ones are deleted")
}

func (b *backupFlags) check(dsn string) error {
	switch {
	case b.dir == "":
		return nil
	case database.IsPostgres(dsn):
		return errors.New("--backup-dir backs up SQLite; for PostgreSQL use pg_dump or continuous archiving (see the README)")
	case b.every < time.Second:
		// Backups are named to the second.
		return errors.New("--backup-every must be at least 1s")
	case b.keep < 1:
		return errors.New("--backup-keep must be at least 1")
	}
	return nil
}

// backupPrefix and backupLayout name scheduled backups so that their names
// sort by time: cloudplane-20261123T183000Z.db.
const (
	backupPrefix = "cloudplane-"
	backupLayout = "20060102T150405Z"
)

// start runs the schedule until the returned stop is called. The first
// backup is due one period after the newest one already in the folder, so
// a server that restarts often neither skips backups nor floods the folder.
func (b *backupFlags) start(db *database.DB, log *slog.Logger, now func() time.Time, outcome func(time.Time, error)) (stop func()) {
	if b.dir == "" {
		return func() {}
	}
	if outcome == nil {
		outcome = func(time.Time, error) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			wait := time.Until(b.nextDue(now()))
			if wait < 0 {
				wait = 0
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			b.takeBackup(ctx, db, log, now(), outcome)
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// nextDue is when the next scheduled backup should be taken.
func (b *backupFlags) nextDue(now time.Time) time.Time {
	names := b.existing()
	if len(names) == 0 {
		return now
	}
	newest := strings.TrimSuffix(strings.TrimPrefix(names[len(names)-1], backupPrefix), ".db")
	t, err := time.Parse(backupLayout, newest)
	if err != nil || t.After(now) {
		return now
	}
	return t.Add(b.every)
}

// takeBackup writes one backup and prunes the oldest beyond keep.
// The outcome is counted before it is logged, so whoever reads the log
// finds it in the metrics too.
func (b *backupFlags) takeBackup(ctx context.Context, db *database.DB, log *slog.Logger, at time.Time, outcome func(time.Time, error)) {
	to := filepath.Join(b.dir, backupPrefix+at.UTC().Format(backupLayout)+".db")
	started := time.Now()
	if err := db.Backup(ctx, to); err != nil {
		if ctx.Err() == nil { // not a backup cut short by shutdown
			outcome(at, err)
			log.Error("scheduled backup failed", "to", to, "err", err)
		}
		return
	}
	outcome(at, nil)
	log.Info("scheduled backup written", "to", to, "duration", time.Since(started).Round(time.Millisecond))
	names := b.existing()
	for len(names) > b.keep {
		old := filepath.Join(b.dir, names[0])
		if err := os.Remove(old); err != nil {
			log.Warn("could not delete an old backup", "file", old, "err", err)
		}
		names = names[1:]
	}
}

// existing lists the folder's scheduled backups, oldest first.
func (b *backupFlags) existing() []string {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, backupPrefix) && strings.HasSuffix(n, ".db") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
