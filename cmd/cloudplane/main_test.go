package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloudplane/models/modelstest"
)

type result struct {
	stdout, stderr string
	exit           int
}

// cliEnv runs the binary with args and extra environment.
func cliEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUserAndKeyLifecycle(t *testing.T) {
	db := modelstest.DSN(t)
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
		"--status", "inactive", "--billing-address", "invalid", "--filesystem-quota", "3", "--ruleset-quota", "4")
	if r.exit != 0 || !strings.Contains(r.stdout, "status inactive, billing address invalid, filesystem quota 3, ruleset quota 4") {
		t.Fatalf("accounts update: %+v", r)
	}
}

// Operator mistakes cost one line on stderr and a non-zero exit.
func TestOperatorErrorsAreOneLine(t *testing.T) {
	db := modelstest.DSN(t)
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
		{"unreachable database", []string{"migrate", "--database", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"}, "database unreachable"},
		{"bad rate limit", []string{"serve", "--database", db, "--rate-limit", "fast"}, "--rate-limit"},
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

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// logBuffer collects a server's log; tests may read it while it runs.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startHealthy runs `cloudplane serve` with extra environment and waits
// for /healthz.
func startHealthy(t *testing.T, env []string, args ...string) (*exec.Cmd, string, *logBuffer) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Env = append(cleanEnv(), env...)
	logs := &logBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return cmd, base, logs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become healthy: %v\n%s", err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeHealthAndGracefulStop(t *testing.T) {
	db := modelstest.DSN(t)
	cmd, base, logs := startHealthy(t, []string{"CLOUDPLANE_DATABASE=" + db})
	res, err := http.Get(base + "/api/v1/regions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated API call: %d", res.StatusCode)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Fatalf("no shutdown log:\n%s", logs.String())
	}
}

// The profiler is served only on --debug-addr, never on the API's port.
func TestServeDebugAddr(t *testing.T) {
	debug := freeAddr(t)
	_, base, _ := startHealthy(t, []string{"CLOUDPLANE_DATABASE=" + modelstest.DSN(t)}, "--debug-addr", debug)
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
	}
	err = json.NewDecoder(res.Body).Decode(&vars)
	res.Body.Close()
	if err != nil || vars.Database == nil || vars.Database.OpenConnections == 0 {
		t.Fatalf("database pool statistics on --debug-addr: %+v, %v", vars.Database, err)
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
