package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/database/migrations"
	"cloudplane/models/modelstest"
)

// migrate --status lists every step as pending on an empty database and
// as applied, with its time, once migrate has run; it changes nothing.
func TestMigrateStatus(t *testing.T) {
	dsn := modelstest.EmptyDSN(t)
	steps := stepIDs(t)
	before := mustCLI(t, "migrate", "--status", "--database", dsn)
	pending := "(?m)^"
	for _, id := range steps {
		pending += regexp.QuoteMeta(id) + ` +pending\n`
	}
	if !regexp.MustCompile(pending + "$").MatchString(before) {
		t.Fatalf("status of an empty database:\n%s", before)
	}
	if again := mustCLI(t, "migrate", "--status", "--database", dsn); again != before {
		t.Fatalf("--status changed the database:\n%s", again)
	}
	if out := mustCLI(t, "migrate", "--database", dsn); out != "migrations applied\n" {
		t.Fatalf("migrate printed %q", out)
	}
	after := mustCLI(t, "migrate", "--status", "--database", dsn)
	applied := regexp.MustCompile(`(?m)^\d{4}_\w+ +applied \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	stillPending := regexp.MustCompile(`(?m) pending$`) // a step's name may say "pending" (0017)
	if n := len(applied.FindAllString(after, -1)); n != len(steps) || stillPending.MatchString(after) {
		t.Fatalf("status after migrate:\n%s", after)
	}
}

// Three migrate processes started together on a fresh database all
// succeed: the lock makes the later ones wait for the first.
func TestMigrateProcessesTogether(t *testing.T) {
	dsn := modelstest.EmptyDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, 3)
	outs := make([]bytes.Buffer, len(cmds))
	for i := range cmds {
		cmds[i] = exec.CommandContext(ctx, testserver.Binary(t), "migrate", "--database", dsn)
		cmds[i].Env = testserver.Env()
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", i, err, outs[i].String())
		}
	}
	status := mustCLI(t, "migrate", "--status", "--database", dsn)
	if strings.Count(status, " applied ") != len(stepIDs(t)) {
		t.Fatalf("status after three processes:\n%s", status)
	}
}

// stepIDs are the migration steps this binary knows, in order: the tests
// follow the history rather than count it.
func stepIDs(t *testing.T) []string {
	t.Helper()
	steps, err := migrations.Steps("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(steps))
	for i, st := range steps {
		ids[i] = st.ID
	}
	return ids
}
