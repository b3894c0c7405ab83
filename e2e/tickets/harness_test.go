// Package tickets drives the ticket and webhook pages end to end: the real
// binary on a fresh SQLite file, its CLI, a webhook receiver, and support
// staff in headless Chromium.
package tickets

import (
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// stepTimeout bounds each wait, so that a stuck step fails instead of
// hanging the suite.
const stepTimeout = 30 * time.Second

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

// browser is one headless Chromium tab. It saves a screenshot of each step
// into shots, which the test logs so that the pages can be looked at.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
	n     int
}

// newBrowser starts Chromium, or skips the test when it is not installed.
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (not on PATH): skipping the browser test; install it to run it")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The screenshots outlive the test, to be looked at: in
	// CLOUDPLANE_E2E_SHOTS when set, else in a new temporary folder.
	shots := os.Getenv("CLOUDPLANE_E2E_SHOTS")
	if shots == "" {
		shots, err = os.MkdirTemp("", "cloudplane-e2e-tickets-shots-")
	} else {
		err = os.MkdirAll(shots, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots of each step: %s", shots)
	// The first action starts the browser, which lives as long as the
	// context it runs in: this one, not a step's shorter one.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, base: base, shots: shots}
}

// do runs steps within stepTimeout, failing the test with what was being
// done when one fails.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.shot("failed")
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open loads a page of the dashboard and waits for its main content.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("#main")))
}

// waitFor polls the page until the JavaScript condition holds, or fails
// after the deadline. The page changes by itself (htmx), so nothing is
// reloaded here.
func (b *browser) waitFor(what, condition string, deadline time.Duration) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, deadline+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](condition,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(deadline)))
	if err != nil {
		b.shot("failed")
		b.t.Fatalf("waiting until %s: %v", what, err)
	}
}

// shot saves the page as it is now, numbered in the order of the steps.
func (b *browser) shot(step string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", step, err)
		return
	}
	b.n++
	name := filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, step))
	if err := os.WriteFile(name, buf, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", step, err)
	}
}
