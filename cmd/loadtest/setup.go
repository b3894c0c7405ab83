package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"cloudplane/handlers/testserver"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// cliTimeout bounds one operator command.
const cliTimeout = time.Minute

// freshDatabase returns an empty database for the run: a SQLite file in
// dir, or a new database on the PostgreSQL server at pgURL, which drop
// removes (WITH (FORCE), so even a server that hung cannot keep it).
func freshDatabase(dir, pgURL string) (dsn string, drop func() error, err error) {
	if pgURL != "" && !database.IsPostgres(pgURL) {
		return "", nil, fmt.Errorf("-database %q: want a postgres:// URL (leave it out for SQLite)", pgURL)
	}
	return testserver.FreshDatabase(dir, pgURL, modelstest.CreatePostgresDB)
}

// createAccounts makes n owners, each with an account of their own, an
// API key and a webhook endpoint at webhookURL(i), through the operator CLI
// the README documents, and returns the keys. Two commands run at a time:
// each hashes a password.
func createAccounts(ctx context.Context, bin, dsn string, n int, webhookURL func(int) string) ([]string, error) {
	keys := make([]string, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i := range keys {
		g.Go(func() error {
			email := fmt.Sprintf("loadtest-%03d@example.com", i+1)
			if _, err := operator(ctx, bin, "users", "create", "--email", email,
				"--password", "load test password", "--database", dsn); err != nil {
				return err
			}
			out, err := operator(ctx, bin, "apikeys", "create", "--email", email, "--name", "loadtest", "--database", dsn)
			if err != nil {
				return err
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if keys[i] = strings.TrimSpace(lines[len(lines)-1]); !strings.HasPrefix(keys[i], "cpk_") {
				return fmt.Errorf("apikeys create printed no key on its last line:\n%s", out)
			}
			_, err = operator(ctx, bin, "webhooks", "set", "--email", email, "--url", webhookURL(i),
				"--webhook-allow-private", "--database", dsn)
			return err
		})
	}
	return keys, g.Wait()
}

// operator runs one `cloudplane` operator command and returns its stdout.
func operator(ctx context.Context, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cliTimeout)
	defer cancel()
	stdout, stderr, code, err := testserver.RunContext(ctx, bin, nil, args...)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d", code)
	}
	if err != nil {
		return "", fmt.Errorf("cloudplane %s %s: %v: %s", args[0], args[1], err, strings.TrimSpace(stderr))
	}
	return stdout, nil
}
