package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks/netguard"
)

// Tests of a command's logic and output run it in-process, through run
// and report as main does; tests that need a real process (serve,
// signals, several processes at once) use the binary of testserver.

// cli runs one command in-process and returns what the binary would
// print and its exit code.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	isolateEnv(t)
	return runCLI(args)
}

func runCLI(args []string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = report(run(context.Background(), args, &out), &errOut)
	return out.String(), errOut.String(), code
}

// mustCLI runs a command that must succeed and returns its stdout.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("cloudplane %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

type result struct {
	stdout, stderr string
	exit           int
}

// cliEnv runs a command in-process with extra environment (KEY=value) for
// the rest of the test.
func cliEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	isolateEnv(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var r result
	r.stdout, r.stderr, r.exit = runCLI(args)
	return r
}

// isolateEnv unsets the developer's CLOUDPLANE_* settings for the rest of
// the test, as testserver.Env does for the binary: commands read every
// flag from one. The tests' own PostgreSQL URL stays.
func isolateEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CLOUDPLANE_") && k != modelstest.PostgresEnv {
			t.Setenv(k, "") // restores the value when the test ends
			_ = os.Unsetenv(k)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// openDB opens the database the binary uses, for checks and fixtures.
func openDB(t *testing.T, dsn string) *models.Store {
	t.Helper()
	db, err := database.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	// As the test servers: support staff sign in with a password alone
	// unless a test turns --require-2fa-support on.
	cfg := models.DefaultConfig()
	cfg.RequireSecondFactorForSupport = false
	store := models.NewStore(db, models.WithConfig(cfg), models.WithWebhookGuard(netguard.Guard{}))
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// migrated creates the database at dsn as serve or migrate would, for the
// commands that refuse to create one.
func migrated(t *testing.T, dsn string) string {
	t.Helper()
	mustCLI(t, "migrate", "--database", dsn)
	return dsn
}
