package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"cloudplane/e2e/browser"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// stepTimeout bounds one browser step or one wait.
const stepTimeout = browser.StepTimeout

// The suite is started by the first test that needs it, not in
// TestMain: `go test` records the environment variables and files a test
// reads only once m.Run has begun, and what decides this suite's outcome
// (CLOUDPLANE_E2E, the browser on PATH, the PostgreSQL URL, the server's
// sources) must be part of its cache key.
var (
	startOnce sync.Once
	env       *suite // the server and the browser every test shares
	skip      string // why the suite does not run, when it does not
	startErr  error
	stopAll   func()
)

type suite struct {
	bin     string // the cloudplane binary
	db      string // its database, shared with the CLI
	base    string // http://127.0.0.1:<port>
	shots   *browser.Shots
	setup   string // the first-run setup link from the server's log
	srv     *testserver.Server
	browser context.Context
}

// tab is a browser tab on the suite's server, with the flows' own steps.
type tab struct {
	*browser.Tab
	s *suite
}

func (s *suite) newTab(t *testing.T) *tab {
	t.Helper()
	return &tab{Tab: browser.NewTab(t, s.browser, s.base, s.shots), s: s}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if stopAll != nil {
		stopAll()
	}
	os.Exit(code)
}

// need returns the shared suite, starting it the first time, or skips
// the test when the suite does not run here.
func need(t *testing.T) *suite {
	t.Helper()
	startOnce.Do(func() {
		var chrome string
		if chrome, skip = browser.Find(); skip != "" {
			return
		}
		env, stopAll, startErr = start(chrome)
		if startErr == nil {
			fmt.Printf("e2e: server %s on %s, screenshots and server log in %s\n", env.base, modelstest.Backend(), env.shots.Dir)
		}
	})
	switch {
	case skip != "":
		t.Skip(skip)
	case startErr != nil:
		t.Fatalf("e2e: could not start: %v", startErr)
	}
	return env
}

// start builds and starts the server (testserver.Build hashes the
// server's sources, which makes them inputs of the test cache), then the browser. cleanup stops
// whatever was started, also after an error.
func start(chrome string) (*suite, func(), error) {
	var stops []func()
	cleanup := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	work, err := os.MkdirTemp("", "cloudplane-e2e-run-")
	if err != nil {
		return nil, cleanup, err
	}
	stops = append(stops, func() { _ = os.RemoveAll(work) })
	// Like the other suites, on PostgreSQL when it is asked for.
	s := &suite{}
	db, drop, err := testserver.FreshDatabase(work, testserver.PostgresURL(), modelstest.CreatePostgresDB)
	if err != nil {
		return nil, cleanup, fmt.Errorf("%s: %w", testserver.PostgresEnv, err)
	}
	stops = append(stops, func() { _ = drop() }) // after the server has stopped
	s.db = db
	if s.shots, err = browser.NewShots("e2e"); err != nil {
		return nil, cleanup, err
	}
	if s.bin, err = testserver.Build(); err != nil {
		return nil, cleanup, err
	}
	srv, setup, stop, err := startServer(s.db, filepath.Join(s.shots.Dir, "server.log"))
	stops = append(stops, stop)
	if err != nil {
		return nil, cleanup, err
	}
	s.base, s.setup, s.srv = srv.URL, setup, srv
	b, stop, err := browser.Start(chrome, work)
	stops = append(stops, stop)
	if err != nil {
		return nil, cleanup, err
	}
	s.browser = b
	return s, cleanup, nil
}
