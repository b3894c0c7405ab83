package main

import (
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloudplane/models/modelstest"
)

var setupLink = regexp.MustCompile(`url=(\S+/setup/[0-9a-f]{64})`)

// waitForLog waits until the server's log, copied from its stderr by
// another goroutine, holds a match of re, and returns the match.
func waitForLog(t *testing.T, logs *logBuffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(logs.String()); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log:\n%s", re, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With no user yet, serve prints a setup link under --base-url; the link
// opens the setup page. Once a user exists, no link is printed.
func TestServePrintsTheSetupLinkWhileNoUserExists(t *testing.T) {
	db := modelstest.DSN(t)
	env := []string{"CLOUDPLANE_DATABASE=" + db}
	_, base, logs := startHealthy(t, env, "--base-url", "https://cloud.example.com/")
	m := waitForLog(t, logs, setupLink)
	if !strings.HasPrefix(m[1], "https://cloud.example.com/setup/") {
		t.Fatalf("no setup link under the base URL in:\n%s", logs.String())
	}
	res, err := http.Get(base + strings.TrimPrefix(m[1], "https://cloud.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("setup page: %d", res.StatusCode)
	}

	// Without --base-url the link names the listening address.
	_, base, logs = startHealthy(t, env)
	if m := waitForLog(t, logs, setupLink); !strings.HasPrefix(m[1], base+"/setup/") {
		t.Fatalf("want a link under %s in:\n%s", base, logs.String())
	}

	if r := cliEnv(t, env, "users", "create", "--email", "ada@example.com", "--password", "correct horse battery"); r.exit != 0 {
		t.Fatalf("users create: %+v", r)
	}
	// The link would be logged before the server answers; stopping it and
	// waiting for its exit flushes everything it wrote.
	cmd, _, logs := startHealthy(t, env)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if strings.Contains(logs.String(), "/setup/") {
		t.Fatalf("setup link printed although a user exists:\n%s", logs.String())
	}
}
