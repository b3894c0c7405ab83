// Package tickets drives the ticket and webhook pages end to end: the real
// binary on a fresh SQLite file, its CLI, a webhook receiver, and support
// staff in headless Chromium.
package tickets

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// stepTimeout bounds each wait, so that a stuck step fails instead of
// hanging the suite.
const stepTimeout = 30 * time.Second

// bin is the cloudplane binary, built once for the package.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cloudplane-e2e-tickets-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "cloudplane")
	if out, err := exec.Command("go", "build", "-o", bin, "cloudplane/cmd/cloudplane").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// plane is a running `cloudplane serve` on its own database.
type plane struct {
	t        *testing.T
	database string
	url      string
	mu       sync.Mutex
	logs     bytes.Buffer
}

var listening = regexp.MustCompile(`msg="cloudplane listening" addr=(http://\S+)`)

// startPlane serves a fresh SQLite database on a free port, letting
// webhooks reach this machine over plain http.
func startPlane(t *testing.T) *plane {
	t.Helper()
	p := &plane{t: t, database: filepath.Join(t.TempDir(), "cloudplane.db")}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--webhook-allow-private", "--rate-limit", "off")
	cmd.Env = p.env()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go p.readLogs(stderr, addr)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("server log:\n%s", p.log())
		}
	})
	select {
	case p.url = <-addr:
	case <-done:
		t.Fatalf("cloudplane serve exited:\n%s", p.log())
	case <-time.After(stepTimeout):
		t.Fatalf("cloudplane serve did not listen:\n%s", p.log())
	}
	return p
}

// env is the environment of every command: the test's database, and none
// of the developer's CLOUDPLANE_* settings.
func (p *plane) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDPLANE_") {
			env = append(env, kv)
		}
	}
	return append(env, "CLOUDPLANE_DATABASE="+p.database)
}

func (p *plane) readLogs(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		p.logs.WriteString(line + "\n")
		p.mu.Unlock()
		if m := listening.FindStringSubmatch(line); m != nil {
			addr <- m[1]
		}
	}
}

func (p *plane) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// cli runs an operator command against the plane's database and returns
// the last line it printed (where commands put a secret).
func (p *plane) cli(args ...string) string {
	p.t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env(), &out, &errOut
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("cloudplane %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
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
