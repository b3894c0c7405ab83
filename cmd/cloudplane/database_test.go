package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cloudplane/handlers/testserver"
)

// Every command but serve and migrate refuses a SQLite file that does not
// exist, naming the absolute path it looked for and how to name another,
// and creates nothing; run from another folder, the default relative path
// no longer yields an empty database and "No user with email".
func TestCommandsRefuseToCreateADatabase(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"users", "create", "--email", "ada@example.com", "--password", "correct horse battery"},
		{"users", "list"},
		{"users", "reset-password", "--email", "ada@example.com"},
		{"apikeys", "create", "--email", "ada@example.com"},
		{"apikeys", "revoke", "--email", "ada@example.com", "--prefix", "cpk_12345678"},
		{"accounts", "update", "--email", "ada@example.com", "--status", "inactive"},
		{"tickets", "set-status", "--id", "x", "--status", "open"},
		{"webhooks", "set", "--email", "ada@example.com", "--url", "https://hooks.example.com/"},
		{"backup", "--to", "copy.db"},
		{"copy", "--from", "data/cloudplane.db", "--to", "postgres://nobody@" + testserver.RefusedAddress(t) + "/none"},
	} {
		t.Run(strings.Join(args[:min(2, len(args))], " "), func(t *testing.T) {
			r := cliEnv(t, nil, args...)
			want := "no database at " + filepath.Join(dir, "data", "cloudplane.db")
			if r.exit == 0 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want one line with %q", r.exit, r.stderr, want)
			}
			if args[0] != "copy" && !strings.Contains(r.stderr, "--database (or CLOUDPLANE_DATABASE)") {
				t.Fatalf("stderr %q does not say how to name the database", r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
				t.Fatalf("the command created data/: %v", err)
			}
		})
	}
	// The environment names the file as well as the flag does.
	r := cliEnv(t, []string{"CLOUDPLANE_DATABASE=elsewhere.db"}, "users", "list")
	if r.exit == 0 || !strings.Contains(r.stderr, "no database at "+filepath.Join(dir, "elsewhere.db")) {
		t.Fatalf("with CLOUDPLANE_DATABASE: %+v", r)
	}
	// migrate creates it; then the commands work.
	migrated(t, "data/cloudplane.db")
	if r := cliEnv(t, nil, "users", "list"); r.exit != 0 {
		t.Fatalf("after migrate: %+v", r)
	}
}
