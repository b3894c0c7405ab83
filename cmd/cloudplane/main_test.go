package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

func TestUserAndKeyLifecycle(t *testing.T) {
	db := migrated(t, modelstest.DSN(t))
	r := cliEnv(t, nil, "users", "create", "--database", db, "--email", "Ada@Example.com", "--password", "a long enough password")
	if r.exit != 0 || !strings.Contains(r.stdout, "ada@example.com") {
		t.Fatalf("users create: %+v", r)
	}
	r = cliEnv(t, nil, "apikeys", "create", "--database", db, "--email", "ada@example.com", "--name", "ci")
	secret := lastLine(r.stdout)
	if r.exit != 0 || !strings.HasPrefix(secret, "cpk_") || len(secret) < 64 {
		t.Fatalf("apikeys create: %+v", r)
	}
	prefix := secret[:12]
	r = cliEnv(t, []string{"CLOUDPLANE_DATABASE=" + db}, "apikeys", "revoke", "--email", "ada@example.com", "--prefix", prefix)
	if r.exit != 0 || !strings.Contains(r.stdout, prefix) {
		t.Fatalf("apikeys revoke via env database: %+v", r)
	}
	r = cliEnv(t, nil, "apikeys", "revoke", "--database", db, "--email", "ada@example.com", "--prefix", prefix)
	if r.exit == 0 {
		t.Fatalf("revoking twice succeeded: %+v", r)
	}
	r = cliEnv(t, nil, "accounts", "update", "--database", db, "--email", "ada@example.com",
		"--status", "inactive", "--billing-address", "invalid", "--filesystem-quota", "3", "--ruleset-quota", "4", "--fabric-partition-quota", "5",
		"--reason", "Invoices unpaid since March")
	if r.exit != 0 || !strings.Contains(r.stdout, "status inactive, billing address invalid, filesystem quota 3, ruleset quota 4, fabric partition quota 5") {
		t.Fatalf("accounts update: %+v", r)
	}
	var ev models.AuditEvent
	modelstest.OpenAt(t, db).DB().Where("resource_name = ? AND action = ?", "account", "updated").Take(&ev)
	if got := ev.AdditionalDetails.Map()["reason"]; got != "Invoices unpaid since March" {
		t.Fatalf("accounts update --reason: audit reason %v", got)
	}
}

// Operator mistakes cost one line on stderr and a non-zero exit.
func TestOperatorErrorsAreOneLine(t *testing.T) {
	db := migrated(t, modelstest.DSN(t))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"users", "create", "--database", db, "--colour", "red"}, "flag provided but not defined"},
		{"missing flag", []string{"users", "create", "--database", db, "--email", "a@example.com"}, "--password is required"},
		{"bad email", []string{"users", "create", "--database", db, "--email", "nope", "--password", "long enough pw"}, "email"},
		{"unknown email", []string{"apikeys", "create", "--database", db, "--email", "ghost@example.com"}, "ghost@example.com"},
		{"bad role", []string{"users", "create", "--database", db, "--email", "b@example.com", "--password", "long enough pw", "--role", "root"}, "role"},
		{"bad quota", []string{"accounts", "update", "--database", db, "--email", "a@example.com", "--filesystem-quota", "many"}, "whole number"},
		{"unreachable database", []string{"migrate", "--database", "postgres://nobody@" + testserver.RefusedAddress(t) + "/none?connect_timeout=2"}, "database unreachable"},
		{"bad rate limit", []string{"serve", "--database", db, "--rate-limit", "fast"}, "--rate-limit"},
		{"upload budget below one file", []string{"serve", "--database", db, "--upload-budget", "10/1h"}, "--upload-budget"},
		{"bad upload budget", []string{"serve", "--database", db, "--upload-budget", "1024"}, "--upload-budget"},
		{"no uploads", []string{"serve", "--database", db, "--max-uploads", "0"}, "--max-uploads"},
		{"no upload progress timeout", []string{"serve", "--database", db, "--upload-progress-timeout", "0s"}, "--upload-progress-timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := cliEnv(t, nil, tc.args...)
			if r.exit == 0 {
				t.Fatalf("exit 0: %+v", r)
			}
			if lines := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; lines != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("stderr %q, want one line containing %q", r.stderr, tc.want)
			}
		})
	}
}

func TestServeHealthAndGracefulStop(t *testing.T) {
	db := migrated(t, modelstest.DSN(t))
	srv := testserver.Start(t, testserver.Options{Database: db})
	res, err := http.Get(srv.URL + "/api/v1/regions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated API call: %d", res.StatusCode)
	}
	if code := srv.Stop(t, syscall.SIGTERM, 30*time.Second); code != 0 {
		t.Fatalf("exit after SIGTERM: %d\n%s", code, srv.Logs())
	}
	if !strings.Contains(srv.Logs(), "stopped") {
		t.Fatalf("no shutdown log:\n%s", srv.Logs())
	}
}

// The profiler is served only on --debug-addr, never on the API's port;
// /debug/vars there shows the pool and the memory SQLite holds, which the
// Go runtime's statistics do not count.
func TestServeDebugAddr(t *testing.T) {
	dsn := modelstest.DSN(t)
	srv := testserver.Start(t, testserver.Options{Database: dsn, Args: []string{"--debug-addr", "127.0.0.1:0"}})
	base, debug := srv.URL, srv.WaitMatch(t, debugListening, 10*time.Second)[1]
	res, err := http.Get("http://" + debug + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("pprof on --debug-addr: %d", res.StatusCode)
	}
	res, err = http.Get("http://" + debug + "/debug/vars")
	if err != nil {
		t.Fatal(err)
	}
	var vars struct {
		Database *struct{ OpenConnections int }
		CMemory  *cMemory `json:"c_memory"`
	}
	err = json.NewDecoder(res.Body).Decode(&vars)
	res.Body.Close()
	if err != nil || vars.Database == nil || vars.Database.OpenConnections == 0 {
		t.Fatalf("database pool statistics on --debug-addr: %+v, %v", vars.Database, err)
	}
	if c := vars.CMemory; c == nil || c.MallocInUse <= 0 ||
		(!database.IsPostgres(dsn) && (c.SQLiteUsed <= 0 || c.SQLiteHighwater < c.SQLiteUsed)) {
		t.Fatalf("C memory on --debug-addr: %+v", vars.CMemory)
	}
	res, err = http.Get(base + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("pprof on the API port: %d", res.StatusCode)
	}
}
