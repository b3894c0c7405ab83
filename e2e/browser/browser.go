// Package browser is the one Chromium harness of the browser tests (e2e,
// e2e/tickets): it finds and starts headless Chromium, opens a tab per
// test with helpers that find elements as a person does (by label and
// accessible name), waits with a deadline for each step, and keeps
// numbered screenshots of the steps to look at.
package browser

import (
	"context"
	"fmt"
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

// StepTimeout bounds one browser step or one wait. It is generous: the
// suites must pass on a loaded two-core CI machine.
const StepTimeout = 30 * time.Second

// Pages are looked at 1280 CSS pixels wide, a common laptop width.
const (
	ViewWidth  = 1280
	ViewHeight = 900
)

// Find returns the browser to drive, or why browser tests skip here:
// CLOUDPLANE_E2E=off, -short, or no Chromium on PATH (said loudly, with how
// to install one).
func Find() (path, skip string) {
	switch {
	case os.Getenv("CLOUDPLANE_E2E") == "off":
		return "", "end-to-end tests are off (CLOUDPLANE_E2E=off)"
	case testing.Short():
		return "", "end-to-end tests skipped in -short mode"
	}
	for _, name := range []string{"chromium", "google-chrome", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no browser for end-to-end tests: install chromium (apt-get install chromium) " +
		"or put google-chrome on PATH; CLOUDPLANE_E2E=off skips them quietly"
}

// Start starts a headless Chromium with its profile in dir and returns
// the context its tabs open in; stop ends it. The flags make it work as
// root in a container without network: no sandbox, no GPU, and nothing
// that calls home (QUIC, component updates, sync).
func Start(chrome, dir string) (ctx context.Context, stop func(), err error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")),
		chromedp.WindowSize(ViewWidth, ViewHeight),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	stop = func() { cancelCtx(); cancelAlloc() }
	// The first Do starts the browser and binds it to ctx, so it gets no
	// deadline of its own; a browser that never answers is given up on.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			return nil, stop, fmt.Errorf("start %s: %w", chrome, err)
		}
	case <-time.After(60 * time.Second):
		return nil, stop, fmt.Errorf("start %s: no answer within 60s", chrome)
	}
	return ctx, stop, nil
}

// ForTest starts a Chromium for one test, stopped when it ends, or skips
// the test as Find says.
func ForTest(t *testing.T) context.Context {
	t.Helper()
	chrome, skip := Find()
	if skip != "" {
		t.Skip(skip)
	}
	ctx, stop, err := Start(chrome, t.TempDir())
	t.Cleanup(stop)
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// Shots is where screenshots go, numbered per label (a test, or a flow
// shared by tests) in the order taken, across tabs.
type Shots struct {
	Dir string

	mu  sync.Mutex
	seq map[string]int
}

// NewShots keeps screenshots in $CLOUDPLANE_E2E_SHOTS when set, else in a
// new temporary folder named after suite: they outlive the run, to be
// looked at.
func NewShots(suite string) (*Shots, error) {
	dir := os.Getenv("CLOUDPLANE_E2E_SHOTS")
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "cloudplane-"+suite+"-shots-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	return &Shots{Dir: dir, seq: map[string]int{}}, err
}

func (s *Shots) next(label string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq[label]++
	return s.seq[label]
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug makes a test or step name usable in file names and emails.
func Slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
