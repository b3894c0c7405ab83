package testserver

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Served is an app serving on a loopback port.
type Served struct {
	URL  string // http://127.0.0.1:<port>
	Addr string // 127.0.0.1:<port>, for raw connections
}

// Serve runs app (one the test built, e.g. with handlers.New) on
// 127.0.0.1 port 0 until the test ends and returns where, for behaviour
// that Test bypasses: real connections, keep-alive, the listener's own
// limits. wrap, if given, wraps the listener as `cloudplane serve` wraps
// its own (a cap per address, lingering on a refusal), innermost first.
func Serve(tb testing.TB, app *fiber.App, wrap ...func(net.Listener) net.Listener) Served {
	tb.Helper()
	s, err := ServeAt(tb, app, "127.0.0.1:0", wrap...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// ServeAt is Serve on a given loopback address (such as "[::1]:0"); it
// returns the error when nothing can listen there, for the test to skip.
func ServeAt(tb testing.TB, app *fiber.App, listen string, wrap ...func(net.Listener) net.Listener) (Served, error) {
	tb.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return Served{}, err
	}
	addr := ln.Addr().String()
	var served net.Listener = ln
	for _, w := range wrap {
		served = w(served)
	}
	stopped := make(chan struct{})
	go func() { _ = app.Listener(served); close(stopped) }()
	tb.Cleanup(func() {
		if err := app.ShutdownWithTimeout(5 * time.Second); err != nil {
			tb.Logf("shut down the app served on %s: %v", addr, err)
		}
		// A shutdown that came before the app began serving missed this
		// listener: closing it ends the serving loop either way.
		_ = served.Close()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			tb.Errorf("the app served on %s did not stop within 10 s", addr)
		}
	})
	return Served{URL: "http://" + addr, Addr: addr}, nil
}

// Test sends req through app in-process, as fiber's app.Test does with no
// timeout, and returns the answer with its body read. It fails the test
// (Fatal: call it from the test's goroutine) when the app does not answer.
func Test(tb testing.TB, app *fiber.App, req *http.Request) (*http.Response, []byte) {
	tb.Helper()
	return TestWithin(tb, app, req, -1)
}

// TestWithin is Test failing when the app has not answered within
// timeout (-1: no bound).
func TestWithin(tb testing.TB, app *fiber.App, req *http.Request, timeout time.Duration) (*http.Response, []byte) {
	tb.Helper()
	ms := -1
	if timeout >= 0 {
		ms = int(timeout.Milliseconds())
	}
	res, err := app.Test(req, ms)
	if err != nil {
		tb.Fatalf("%s %s: no answer: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("%s %s: read the answer: %v", req.Method, req.URL, err)
	}
	return res, body
}
