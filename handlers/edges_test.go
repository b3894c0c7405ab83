package handlers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// Routing is case-sensitive, and a path under /api in any other case is
// no route: the API's JSON 404, with its headers, never the dashboard's
// HTML (it was a 401 page without CSP, and /API/V1/... ran the route).
// The dashboard's own paths are served as before.
func TestAPIPathsInAnyCaseAnswerTheJSON404(t *testing.T) {
	store := modelstest.Open(t)
	owner, key := modelstest.Owner(t, store, "case@example.com")
	addr := serveStore(t, store)
	auth := "Authorization: Bearer " + key + "\r\n"
	for _, tc := range []struct{ req string }{
		{get("/API/V1/regions", "")},
		{get("/API/V1/regions", auth)},
		{get("/Api/v1/nope", auth)},
		{get("/api/V1/regions", auth)},
		{get("/API", "")},
		{strings.Replace(get("/API/V1/filesystems", auth+"Content-Type: application/json\r\nContent-Length: 36\r\n"), "GET", "POST", 1) +
			`{"name":"upper","region":"us-east-1"}`[:36]},
	} {
		line, _, _ := strings.Cut(tc.req, "\r\n")
		t.Run(line, func(t *testing.T) {
			res, body := rawRequest(t, addr, tc.req)
			expectEnvelope(t, res, body, http.StatusNotFound)
			if !strings.Contains(string(body), `"global/not-found"`) {
				t.Fatalf("not global/not-found: %s", body)
			}
		})
	}
	if fss, err := store.Filesystems(context.Background(), owner.Actor()); err != nil || len(fss) != 0 {
		t.Fatalf("a POST in upper case created %d filesystems (%v)", len(fss), err)
	}
	// The API in its own case, and the dashboard, are unchanged.
	if res, body := rawRequest(t, addr, get("/api/v1/regions", auth)); res.StatusCode != http.StatusOK {
		t.Fatalf("/api/v1/regions: %d %s", res.StatusCode, body)
	}
	if res, body := rawRequest(t, addr, get("/sign-in", "")); res.StatusCode != http.StatusOK || !strings.Contains(string(body), "<html") {
		t.Fatalf("/sign-in: %d %s", res.StatusCode, body)
	}
	for _, page := range []string{"/SIGN-IN", "/Api-keys"} {
		res, body := rawRequest(t, addr, get(page, ""))
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("Content-Security-Policy") == "" {
			t.Fatalf("%s: not a page with the security headers (%d %s): %s", page, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// Every answer under /api/ carries the RateLimit headers, whichever part
// of the server made it. Those the guard did not count (the OpenAPI
// document, unknown paths and methods, requests refused before routing)
// describe the caller's address bucket without spending it.
func TestEveryAPIAnswerCarriesRateLimitHeaders(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "limits@example.com")
	limiter := func(q ratelimit.Quota) ratelimit.Limiter {
		l, err := ratelimit.NewMemory(q)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	app, _ := jsonLogApp(t, store, Config{Limits: api.Limits{
		General:         limiter(ratelimit.Quota{Rate: time.Second, Burst: 50}),
		Unauthenticated: limiter(ratelimit.Quota{Rate: time.Minute, Burst: 3}),
	}})
	addr := serveApp(t, app)
	auth := "Authorization: Bearer " + key + "\r\n"
	bad := "Authorization: Bearer cpk_00000000_0000000000000000000000000000000000000000000000000000000000000000\r\n"
	cases := []struct {
		name, req string
		status    int
		remaining string // of the address bucket (burst 3) when not ""
	}{
		{"the OpenAPI document", get("/api/v1/openapi.json", ""), http.StatusOK, "3"},
		{"the OpenAPI document again, not counted", get("/api/v1/openapi.json", ""), http.StatusOK, "3"},
		{"an unknown path outside /api/v1", get("/api/v2/regions", ""), http.StatusNotFound, "3"},
		{"an unknown path in upper case", get("/API/V1/regions", auth), http.StatusNotFound, "3"},
		{"a method the server does not know", strings.Replace(get("/api/v1/regions", auth), "GET", "PROPFIND", 1), http.StatusNotFound, "3"},
		{"headers past the limit", get("/api/v1/regions", "X-Big: "+strings.Repeat("a", HeaderLimit)+"\r\n"), http.StatusRequestHeaderFieldsTooLarge, ""},
		{"an ambiguous body length", strings.Replace(get("/api/v1/regions", "Content-Length: 1\r\nContent-Length: 1\r\n"), "GET", "POST", 1) + "x", http.StatusBadRequest, "3"},
		{"a control byte in the path", get("/api/v1/a\x01b", ""), http.StatusBadRequest, "3"},
		{"no key", get("/api/v1/regions", ""), http.StatusUnauthorized, ""},
		{"a refused key, counted against the address", get("/api/v1/regions", bad), http.StatusUnauthorized, "1"},
		{"an unknown method on a route, with a key", strings.Replace(get("/api/v1/regions", auth), "GET", "DELETE", 1), http.StatusNotFound, ""},
		{"a route, with a key", get("/api/v1/regions", auth), http.StatusOK, ""},
	}
	for _, tc := range cases {
		res, body := rawRequest(t, addr, tc.req)
		if res.StatusCode != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.name, res.StatusCode, tc.status, body)
		}
		for _, h := range []string{ratelimit.HeaderLimit, ratelimit.HeaderRemaining, ratelimit.HeaderReset} {
			if res.Header.Get(h) == "" {
				t.Fatalf("%s (%d): no %s header", tc.name, res.StatusCode, h)
			}
		}
		if tc.remaining != "" && res.Header.Get(ratelimit.HeaderRemaining) != tc.remaining {
			t.Fatalf("%s: %s %q, want %s", tc.name, ratelimit.HeaderRemaining, res.Header.Get(ratelimit.HeaderRemaining), tc.remaining)
		}
		if res.Header.Get(ratelimit.HeaderRetryAfter) != "" {
			t.Fatalf("%s: Retry-After on a %d", tc.name, res.StatusCode)
		}
	}

	// A connection past the address's cap is refused 429 with them too.
	capped := testserver.Serve(t, app, func(ln net.Listener) net.Listener { return LimitPerAddress(ln, 1) }, LingerOnRefusal).Addr
	held := dialServed(t, capped, "")
	defer held.Close()
	res, body := rawRequest(t, capped, get("/api/v1/openapi.json", ""))
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get(ratelimit.HeaderLimit) == "" {
		t.Fatalf("past the connection cap: %d, %s %q: %s", res.StatusCode, ratelimit.HeaderLimit, res.Header.Get(ratelimit.HeaderLimit), body)
	}
}

// A control byte in the request's path (raw: fasthttp cannot parse the
// target and left the path empty) is refused 400, in the envelope under
// /api/ and as a page with the security headers elsewhere, and the access
// log writes the path with the byte %-escaped, never path="". One sent
// percent-encoded is an ordinary unknown path.
func TestControlBytesInThePathAreRefusedAndLoggedEscaped(t *testing.T) {
	store := modelstest.Open(t)
	app, logs := jsonLogApp(t, store, Config{})
	addr := serveApp(t, app)
	cases := []struct {
		target, logged string
		status         int
		api            bool
	}{
		{"/api/v1/a\x01b?q=1", "/api/v1/a%01b", http.StatusBadRequest, true},
		{"/API/v1/\x7f", "/API/v1/%7F", http.StatusBadRequest, true},
		{"/api/v1/a%01b", "/api/v1/a%01b", http.StatusUnauthorized, true},
		{"/sign-in\x1b[2J", "/sign-in%1B[2J", http.StatusBadRequest, false},
	}
	for _, tc := range cases {
		res, body := rawRequest(t, addr, get(tc.target, ""))
		if tc.api {
			expectEnvelope(t, res, body, tc.status)
		} else if res.StatusCode != tc.status || !strings.Contains(string(body), "<html") || res.Header.Get("Content-Security-Policy") == "" {
			t.Fatalf("%q: not an HTML %d page with CSP (%d): %s", tc.target, tc.status, res.StatusCode, body)
		}
		if !waitForAccessLine(logs, res.Header.Get("X-Request-Id"), func(l map[string]any) bool {
			return l["path"] == tc.logged && l["status"] == float64(tc.status) && (tc.status != http.StatusBadRequest || l["route"] == "unmatched")
		}, t) {
			t.Fatalf("%q: no access line with path %q and status %d: %v", tc.target, tc.logged, tc.status, withMsg(logs.lines(t), "request"))
		}
	}
}

// waitForAccessLine polls logs, within a deadline, for the access line of
// request id: the line is written after the answer is sent.
func waitForAccessLine(logs *syncBuffer, id string, match func(map[string]any) bool, t *testing.T) bool {
	t.Helper()
	var line map[string]any
	testserver.Within(5*time.Second, func() bool {
		for _, l := range withMsg(logs.lines(t), "request") {
			if l["request_id"] == id {
				line = l
				return true
			}
		}
		return false
	})
	return line != nil && match(line)
}

// unavailableLimiter is a limiter store that cannot be reached (Redis
// down): every call fails, and is counted.
type unavailableLimiter struct{ calls atomic.Int64 }

func (l *unavailableLimiter) Allow(context.Context, string) (ratelimit.Result, error) {
	l.calls.Add(1)
	return ratelimit.Result{}, errors.New("limiter unavailable")
}

func (l *unavailableLimiter) Peek(context.Context, string) (ratelimit.Result, error) {
	l.calls.Add(1)
	return ratelimit.Result{}, errors.New("limiter unavailable")
}

// With the limiter store down, requests are served without the headers
// (the guard fails open) and each asks the store once: the guard's failed
// count is not followed by a second try to describe the address bucket.
func TestAnUnavailableLimiterIsAskedOncePerRequest(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "down@example.com")
	down := &unavailableLimiter{}
	app, _ := jsonLogApp(t, store, Config{Limits: api.Limits{General: down, Unauthenticated: down}})
	addr := serveApp(t, app)
	for _, tc := range []struct {
		req    string
		status int
	}{
		{get("/api/v1/regions", "Authorization: Bearer "+key+"\r\n"), http.StatusOK},
		{get("/api/v1/openapi.json", ""), http.StatusOK},
		{get("/api/v2/nothing", ""), http.StatusNotFound},
	} {
		before := down.calls.Load()
		res, body := rawRequest(t, addr, tc.req)
		if res.StatusCode != tc.status {
			t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
		}
		if calls := down.calls.Load() - before; calls != 1 {
			t.Fatalf("%d calls to the limiter for one request", calls)
		}
	}
}
