// Package tickets drives the ticket and webhook pages end to end: the real
// binary on a fresh SQLite file, its CLI, a webhook receiver, and support
// staff in headless Chromium.
package tickets

import (
	"strings"
	"testing"

	"cloudplane/e2e/browser"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// plane is a running `cloudplane serve` on its own database.
type plane struct {
	t   *testing.T
	env []string // the plane's database, for the server and the CLI
	url string
}

// startPlane serves a fresh SQLite database on port 0, letting webhooks
// reach this machine over plain http.
func startPlane(t *testing.T) *plane {
	t.Helper()
	// Like the other suites, on PostgreSQL when it is asked for; dropped
	// after the server has stopped (cleanups run last first).
	db := modelstest.DSN(t)
	p := &plane{t: t, env: []string{"CLOUDPLANE_DATABASE=" + db}}
	p.url = testserver.Start(t, testserver.Options{Database: db, Args: []string{"--webhook-allow-private", "--rate-limit", "off"}}).URL
	return p
}

// cli runs an operator command against the plane's database and returns
// the last line it printed (where commands put a secret).
func (p *plane) cli(args ...string) string {
	p.t.Helper()
	out, errOut, code := testserver.Run(p.t, p.env, args...)
	if code != 0 {
		p.t.Fatalf("cloudplane %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// tab is a browser tab on the plane, in a Chromium of the test's own.
type tab struct{ *browser.Tab }

// newTab starts Chromium for the test (or skips it, as browser.Find says)
// and opens a tab on the plane; its screenshots are kept to be looked at.
func (p *plane) newTab(t *testing.T) *tab {
	t.Helper()
	shots, err := browser.NewShots("e2e-tickets")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots of each step: %s", shots.Dir)
	return &tab{browser.NewTab(t, browser.ForTest(t), p.url, shots)}
}
