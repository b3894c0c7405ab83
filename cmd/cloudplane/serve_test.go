package main

import (
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

var setupLink = regexp.MustCompile(`url=(\S+/setup/[0-9a-f]{64})`)

// waitForLog waits until the server's log, copied from its stderr by
// another goroutine, holds a match of re, and returns the match.
// With no user yet, serve prints a setup link under --base-url; the link
// opens the setup page. Once a user exists, no link is printed.
func TestServePrintsTheSetupLinkWhileNoUserExists(t *testing.T) {
	db := modelstest.DSN(t)
	env := []string{"CLOUDPLANE_DATABASE=" + db}
	srv := testserver.Start(t, testserver.Options{Database: db, Args: []string{"--base-url", "https://cloud.example.com/"}})
	m := srv.WaitMatch(t, setupLink, 10*time.Second)
	if !strings.HasPrefix(m[1], "https://cloud.example.com/setup/") {
		t.Fatalf("no setup link under the base URL in:\n%s", srv.Logs())
	}
	res, err := http.Get(srv.URL + strings.TrimPrefix(m[1], "https://cloud.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("setup page: %d", res.StatusCode)
	}

	// Without --base-url the link names the listening address.
	srv = testserver.Start(t, testserver.Options{Database: db})
	if m := srv.WaitMatch(t, setupLink, 10*time.Second); !strings.HasPrefix(m[1], srv.URL+"/setup/") {
		t.Fatalf("want a link under %s in:\n%s", srv.URL, srv.Logs())
	}

	if r := cliEnv(t, env, "users", "create", "--email", "ada@example.com", "--password", "correct horse battery"); r.exit != 0 {
		t.Fatalf("users create: %+v", r)
	}
	// The link would be logged before the server answers; stopping it and
	// waiting for its exit flushes everything it wrote.
	srv = testserver.Start(t, testserver.Options{Database: db})
	if code := srv.Stop(t, syscall.SIGTERM, 30*time.Second); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	if strings.Contains(srv.Logs(), "/setup/") {
		t.Fatalf("setup link printed although a user exists:\n%s", srv.Logs())
	}
}
