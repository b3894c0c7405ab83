package handlers

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers/api/apitest"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// One address holding its cap of connections has the next ones answered
// 429 (the JSON envelope under /api/, with Retry-After) and closed, many at
// once, whether it speaks IPv4 or IPv6; a silent one is closed without
// waiting for the read timeout; other addresses are served meanwhile; and
// once one of the address's connections closes, it is served again.
func TestConnectionsPastTheAddressCapAreRefused(t *testing.T) {
	for _, network := range []struct{ name, listen, other string }{
		{"IPv4", "127.0.0.1:0", "127.0.0.2"},
		{"IPv6", "[::1]:0", ""},
	} {
		t.Run(network.name, func(t *testing.T) {
			addr := serveCapped(t, network.listen, 3)
			held := make([]net.Conn, 3)
			for i := range held {
				held[i] = dialServed(t, addr, "")
				defer held[i].Close()
			}

			spec := apitest.Optional(t)
			var wg sync.WaitGroup
			for i := range 24 {
				wg.Go(func() {
					path := "/api/v1/instance-types"
					if i%3 == 2 {
						path = "/sign-in"
					}
					res, body, closed := requestOn(t, addr, "", path)
					if res == nil {
						return
					}
					if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" || !closed {
						t.Errorf("%s past the cap: %d, Retry-After %q, closed %v: %s", path, res.StatusCode, res.Header.Get("Retry-After"), closed, body)
						return
					}
					if path == "/sign-in" {
						if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
							t.Errorf("page past the cap: %s", res.Header.Get("Content-Type"))
						}
						return
					}
					expectEnvelope(t, res, body, http.StatusTooManyRequests)
					if !strings.Contains(string(body), `"global/rate-limited"`) {
						t.Errorf("code: %s", body)
					}
					spec.ValidateResponse(t, http.MethodGet, path, res.StatusCode, res.Header, body)
				})
			}
			wg.Wait()

			// A connection past the cap that sends nothing is closed at once
			// (overCapGrace), not at the read timeout.
			silent, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer silent.Close()
			start := time.Now()
			_ = silent.SetReadDeadline(time.Now().Add(overCapGrace + 10*time.Second))
			if _, err := io.ReadAll(silent); err != nil {
				t.Fatalf("silent connection past the cap: %v after %s", err, time.Since(start))
			}

			if network.other != "" {
				if c := dialServed(t, addr, network.other); c != nil {
					_ = c.Close()
				}
			}
			_ = held[0].Close()
			waitServed(t, addr)
		})
	}
}

// serveCapped serves the app on listen, a loopback address, with at most
// perAddress connections per client address; it skips the test when the
// machine cannot listen there (no IPv6 loopback).
func serveCapped(t *testing.T, listen string, perAddress int) string {
	t.Helper()
	app := New(Config{Store: modelstest.Open(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), ReadTimeout: time.Minute})
	s, err := testserver.ServeAt(t, app, listen, func(ln net.Listener) net.Listener { return LimitPerAddress(ln, perAddress) })
	if err != nil {
		t.Skipf("no loopback at %s on this machine: %v", listen, err)
	}
	return s.Addr
}

// dialServed opens a connection (from the local address from, if not
// empty) and has one request answered 200 on it, kept alive.
func dialServed(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	c := dialFrom(t, addr, from)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("connection within the cap: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("connection within the cap: %d", res.StatusCode)
	}
	_ = c.SetDeadline(time.Time{})
	return c
}

func dialFrom(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requestOn sends a kept-alive GET of path on a new connection and reads
// the answer, and whether the server closed the connection after it.
func requestOn(t *testing.T, addr, from, path string) (*http.Response, []byte, bool) {
	c := dialFrom(t, addr, from)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n"); err != nil {
		t.Error(err)
		return nil, nil, false
	}
	r := bufio.NewReader(c)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Errorf("read answer: %v", err)
		return nil, nil, false
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Error(err)
	}
	_, err = r.ReadByte()
	return res, body, errors.Is(err, io.EOF)
}

// waitServed waits until a new connection to addr is served: the server
// notices a closed connection when it next reads from it.
func waitServed(t *testing.T, addr string) {
	t.Helper()
	testserver.Eventually(t, 10*time.Second, func() bool {
		res, _ := rawRequest(t, addr, get("/healthz", ""))
		return res.StatusCode == http.StatusOK
	}, "a new connection served 200 after one closed")
}
