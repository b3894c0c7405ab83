package handlers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// syncBuffer collects log output written from fiber's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines parses every JSON log line written so far.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Text())
		}
		out = append(out, line)
	}
	return out
}

// withMsg returns the lines whose msg is msg.
func withMsg(lines []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

func jsonLogApp(t *testing.T, store *models.Store, cfg Config) (*fiber.App, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	log, err := observe.NewLogger(logs, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Log = store, log
	return New(cfg), logs
}

func do(t *testing.T, app *fiber.App, req *http.Request) *http.Response {
	t.Helper()
	res, _ := testserver.Test(t, app, req)
	return res
}

// Every request, API, dashboard, static or unknown, gets one access line
// with its fields and the id of its X-Request-Id header; the account is
// named when an API key or a session says who it is.
func TestOneAccessLinePerRequest(t *testing.T) {
	store := modelstest.Open(t)
	u, key := modelstest.Owner(t, store, "logs@example.com")
	_, session, err := store.SignIn(context.Background(), models.SignInInput{Email: u.Email, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	app, logs := jsonLogApp(t, store, Config{})

	type want struct {
		method, path, route string
		status              int
		account             bool
	}
	cases := []struct {
		req  func() *http.Request
		want want
	}{
		{func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/filesystems", nil)
			r.Header.Set("Authorization", "Bearer "+key)
			return r
		}, want{"GET", "/api/v1/filesystems", "/api/v1/filesystems", 200, true}},
		{func() *http.Request {
			r := httptest.NewRequest(http.MethodDelete, "/api/v1/filesystems/nope", nil)
			r.Header.Set("Authorization", "Bearer "+key)
			return r
		}, want{"DELETE", "/api/v1/filesystems/nope", "/api/v1/filesystems/:id", 404, true}},
		{func() *http.Request { return httptest.NewRequest(http.MethodGet, "/api/v1/regions", nil) },
			want{"GET", "/api/v1/regions", "/api/v1", 401, false}},
		{func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.AddCookie(&http.Cookie{Name: "cloudplane_session", Value: session})
			return r
		}, want{"GET", "/", "/", 200, true}},
		{func() *http.Request { return httptest.NewRequest(http.MethodGet, "/static/app.css", nil) },
			want{"GET", "/static/app.css", "/static/*", 200, false}},
		{func() *http.Request { return httptest.NewRequest(http.MethodGet, "/no/such/page", nil) },
			want{"GET", "/no/such/page", "unmatched", 404, false}},
	}
	var ids []string
	for _, tc := range cases {
		res := do(t, app, tc.req())
		if res.StatusCode != tc.want.status {
			t.Fatalf("%s %s: status %d, want %d", tc.want.method, tc.want.path, res.StatusCode, tc.want.status)
		}
		ids = append(ids, res.Header.Get("X-Request-Id"))
	}
	access := withMsg(logs.lines(t), "request")
	if len(access) != len(cases) {
		t.Fatalf("%d access lines for %d requests: %v", len(access), len(cases), access)
	}
	for i, tc := range cases {
		l := access[i]
		if ids[i] == "" || l["request_id"] != ids[i] {
			t.Errorf("%s: request_id %v, header %q", tc.want.path, l["request_id"], ids[i])
		}
		if l["method"] != tc.want.method || l["path"] != tc.want.path || l["route"] != tc.want.route ||
			l["status"] != float64(tc.want.status) || l["client"] != "0.0.0.0" {
			t.Errorf("%s: line %v, want %+v", tc.want.path, l, tc.want)
		}
		if _, ok := l["duration_ms"].(float64); !ok {
			t.Errorf("%s: no duration_ms in %v", tc.want.path, l)
		}
		if b, _ := l["bytes"].(float64); b <= 0 {
			t.Errorf("%s: bytes %v", tc.want.path, l["bytes"])
		}
		account, named := l["account_id"]
		if named != tc.want.account || named && account != *u.AccountID {
			t.Errorf("%s: account_id %v, want it named: %v (%s)", tc.want.path, account, tc.want.account, *u.AccountID)
		}
	}
}

// A failure logged while serving a request carries the request's id, on
// the API and on the dashboard.
func TestErrorLogsCarryTheRequestID(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "boom@example.com")
	app, logs := jsonLogApp(t, store, Config{extraAPIRoutes: func(r fiber.Router) {
		r.Get("/boom", func(*fiber.Ctx) error { return errors.New("boom") })
	}})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/boom", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	apiID := do(t, app, req).Header.Get("X-Request-Id")

	// The session lookup fails once the database is gone: a dashboard 500.
	_ = store.Close()
	req = httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: "cloudplane_session", Value: "whatever"})
	res := do(t, app, req)
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("dashboard without database: %d", res.StatusCode)
	}
	webID := res.Header.Get("X-Request-Id")

	failed := withMsg(logs.lines(t), "request failed")
	if len(failed) != 2 || failed[0]["request_id"] != apiID || failed[1]["request_id"] != webID {
		t.Fatalf("error lines %v, want ids %s then %s", failed, apiID, webID)
	}
}

// An X-Request-Id from a trusted proxy is kept if it is sane; from
// anyone else, or malformed, it is replaced.
func TestIncomingRequestID(t *testing.T) {
	cases := []struct {
		name    string
		proxies []string
		id      string
		kept    bool
	}{
		{"trusted proxy", []string{"127.0.0.1"}, "proxy-abc.123", true},
		{"no proxies configured", nil, "proxy-abc.123", false},
		{"untrusted peer", []string{"192.0.2.1"}, "proxy-abc.123", false},
		{"trusted proxy, space inside", []string{"127.0.0.1"}, "a b", false},
		{"trusted proxy, too long", []string{"127.0.0.1"}, strings.Repeat("x", 129), false},
		{"trusted proxy, longest allowed", []string{"127.0.0.1"}, strings.Repeat("x", 128), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app, logs := jsonLogApp(t, modelstest.Open(t), Config{TrustedProxies: tc.proxies})
			req, _ := http.NewRequest(http.MethodGet, testserver.Serve(t, app).URL+"/livez", nil)
			req.Header.Set("X-Request-Id", tc.id)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got := res.Header.Get("X-Request-Id")
			if (got == tc.id) != tc.kept || got == "" {
				t.Fatalf("X-Request-Id %q for incoming %q, kept: %v", got, tc.id, tc.kept)
			}
			if access := withMsg(logs.lines(t), "request"); len(access) != 1 || access[0]["request_id"] != got {
				t.Fatalf("access lines %v, want one with %s", access, got)
			}
		})
	}
}
