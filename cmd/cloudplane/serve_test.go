package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models/modelstest"
)

var setupLink = regexp.MustCompile(`url=(\S+/setup/[0-9a-f]{64})`)

// With no user yet, serve prints a setup link under --base-url; the link
// opens the setup page. Once a user exists, no link is printed.
func TestServePrintsTheSetupLinkWhileNoUserExists(t *testing.T) {
	db := modelstest.DSN(t)
	env := []string{"CLOUDPLANE_DATABASE=" + db}
	_, base, logs := startHealthy(t, env, "--base-url", "https://cloud.example.com/")
	m := setupLink.FindStringSubmatch(logs.String())
	if m == nil || !strings.HasPrefix(m[1], "https://cloud.example.com/setup/") {
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
	if m := setupLink.FindStringSubmatch(logs.String()); m == nil || !strings.HasPrefix(m[1], base+"/setup/") {
		t.Fatalf("want a link under %s in:\n%s", base, logs.String())
	}

	if r := cliEnv(t, env, "users", "create", "--email", "ada@example.com", "--password", "correct horse battery"); r.exit != 0 {
		t.Fatalf("users create: %+v", r)
	}
	_, _, logs = startHealthy(t, env)
	if strings.Contains(logs.String(), "/setup/") {
		t.Fatalf("setup link printed although a user exists:\n%s", logs.String())
	}
}
