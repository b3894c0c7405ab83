package handlers

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// reply is one response, read whole.
type reply struct {
	status int
	header http.Header
	body   string
}

// doWithin sends req to app and fails the test if no reply comes within wait:
// a request must never outlive its deadline by much.
func doWithin(t *testing.T, app *fiber.App, req *http.Request, wait time.Duration) reply {
	t.Helper()
	res, raw := testserver.TestWithin(t, app, req, wait)
	return reply{res.StatusCode, res.Header, string(raw)}
}

func apiGet(key, path string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	return req
}

// expectUnavailable checks the API's 503: the envelope with its request
// id and suggestion, and Retry-After.
func expectUnavailable(t *testing.T, a reply) {
	t.Helper()
	var body struct {
		Error struct {
			Code, Message, Suggestion string
			RequestID                 string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &body); err != nil {
		t.Fatalf("status %d, not JSON: %s", a.status, a.body)
	}
	if a.status != http.StatusServiceUnavailable || body.Error.Code != string(models.CodeProviderUnavailable) {
		t.Fatalf("status %d body %s, want 503 %s", a.status, a.body, models.CodeProviderUnavailable)
	}
	if a.header.Get("Retry-After") == "" || body.Error.RequestID == "" || body.Error.RequestID != a.header.Get("X-Request-Id") ||
		!strings.Contains(strings.ToLower(body.Error.Suggestion), "try again shortly") {
		t.Fatalf("503 without Retry-After, request id or suggestion: %v %s", a.header, a.body)
	}
}

// A PostgreSQL server that stops answering, then goes away, costs each
// request its deadline and a 503, on the API and the dashboard alike, for
// many clients at once; when it comes back the same process serves again.
func TestDatabaseOutageIsUnavailableThenRecovers(t *testing.T) {
	if modelstest.Backend() != "postgres" {
		t.Skip("needs a PostgreSQL server to take away: set " + modelstest.PostgresEnv)
	}
	dsn, proxy := modelstest.ProxiedDSN(t, modelstest.DSN(t))
	store := modelstest.OpenAt(t, dsn)
	_, key := modelstest.Owner(t, store, "outage@example.com")
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RequestTimeout: time.Second})
	const path = "/api/v1/filesystems"
	if a := doWithin(t, app, apiGet(key, path), 10*time.Second); a.status != http.StatusOK {
		t.Fatalf("before the outage: %d %s", a.status, a.body)
	}

	for _, outage := range []struct {
		name  string
		start func()
	}{{"not answering", proxy.Blackhole}, {"down", proxy.Refuse}} {
		outage.start()
		var wg sync.WaitGroup
		answers := make([]reply, 16)
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = doWithin(t, app, apiGet(key, path), 5*time.Second)
			}()
		}
		wg.Wait()
		for _, a := range answers {
			expectUnavailable(t, a)
		}
		page := doWithin(t, app, httptest.NewRequest(http.MethodGet, "/setup/0123456789abcdef", nil), 5*time.Second)
		if page.status != http.StatusServiceUnavailable || page.header.Get("Retry-After") == "" ||
			!strings.Contains(page.body, "Try again shortly") || strings.Contains(page.body, "goroutine") {
			t.Fatalf("%s: dashboard answered %d %v %s", outage.name, page.status, page.header, page.body)
		}
		if h := doWithin(t, app, httptest.NewRequest(http.MethodGet, "/healthz", nil), 5*time.Second); h.status != http.StatusServiceUnavailable {
			t.Fatalf("%s: healthz %d", outage.name, h.status)
		}
	}

	proxy.Forward()
	// database/sql drops the connections that failed and dials new ones;
	// allow a few deadlines for that, no restart.
	var a reply
	if !testserver.Within(10*time.Second, func() bool {
		a = doWithin(t, app, apiGet(key, path), 5*time.Second)
		return a.status == http.StatusOK
	}) {
		t.Fatalf("not recovered after the database came back: %d %s", a.status, a.body)
	}
	if h := doWithin(t, app, httptest.NewRequest(http.MethodGet, "/healthz", nil), 5*time.Second); h.status != http.StatusOK {
		t.Fatalf("healthz after recovery: %d", h.status)
	}
}

// On SQLite, a write queued behind another connection's write lock past
// the request's deadline is 503, not the 409 of a lost race, and it does
// not wait out SQLite's busy timeout.
func TestWriteBehindHeldLockIsUnavailable(t *testing.T) {
	if modelstest.Backend() != "sqlite" {
		t.Skip("SQLite's write lock; PostgreSQL is covered by TestDatabaseOutageIsUnavailableThenRecovers")
	}
	dsn := modelstest.DSN(t)
	store := modelstest.OpenAt(t, dsn)
	_, key := modelstest.Owner(t, store, "locked@example.com")
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RequestTimeout: 300 * time.Millisecond})
	release := modelstest.HoldWriteLock(t, dsn)

	create := func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/filesystems", strings.NewReader(`{"name": "late", "region": "us-east-1"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	// Well under the 10 s busy timeout the write would otherwise wait.
	expectUnavailable(t, doWithin(t, app, create(), 5*time.Second))

	release()
	if a := doWithin(t, app, create(), 5*time.Second); a.status != http.StatusOK {
		t.Fatalf("after the lock is released: %d %s", a.status, a.body)
	}
}
