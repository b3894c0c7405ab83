package handlers

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

func pathsApp(t *testing.T) (func(method, path string, header map[string]string) (int, string, http.Header), string) {
	t.Helper()
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "paths@example.com")
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return func(method, path string, header map[string]string) (int, string, http.Header) {
		t.Helper()
		req := httptest.NewRequest(method, path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, body := testserver.Test(t, app, req)
		return res.StatusCode, string(body), res.Header
	}, key
}

// A base URL that ends in a slash gives paths with doubled slashes; they
// are served as the path with single slashes.
func TestRepeatedSlashesUnderAPI(t *testing.T) {
	do, key := pathsApp(t)
	bearer := map[string]string{"Authorization": "Bearer " + key}
	for _, path := range []string{"/api/v1//ssh-keys", "/api//v1/ssh-keys", "/api/v1///ssh-keys", "/api/v1/ssh-keys/"} {
		if status, body, _ := do("GET", path, bearer); status != http.StatusOK || !strings.HasPrefix(body, `{"data":`) {
			t.Errorf("GET %s: %d %s", path, status, body)
		}
	}
	if status, body, _ := do("GET", "/api/v1//nothing", bearer); status != http.StatusNotFound || !strings.Contains(body, "GET /api/v1/nothing") {
		t.Errorf("unknown path with doubled slashes: %d %s", status, body)
	}
}

// A script pointed at the server's root instead of /api/v1 gets the API's
// JSON 404 saying where the API is, never the sign-in page.
func TestDashboardPathsAnswerAPIClientsInJSON(t *testing.T) {
	do, key := pathsApp(t)
	basic := base64.StdEncoding.EncodeToString([]byte(key + ":"))
	for name, header := range map[string]map[string]string{
		"bearer":          {"Authorization": "Bearer " + key},
		"bearer, no key":  {"Authorization": "Bearer nonsense"},
		"basic, encoded":  {"Authorization": "Basic " + basic},
		"basic, raw key":  {"Authorization": "Basic " + key},
		"accepts json":    {"Accept": "application/json"},
		"accepts problem": {"Accept": "application/json, application/problem+json"},
	} {
		for _, path := range []string{"/ssh-keys", "/", "/instances/abc"} {
			status, body, h := do("GET", path, header)
			var envelope struct {
				Error struct {
					Code, Message string
					RequestID     string `json:"request_id"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &envelope); err != nil || status != http.StatusNotFound ||
				envelope.Error.Code != "global/not-found" || !strings.Contains(envelope.Error.Message, "/api/v1") ||
				envelope.Error.RequestID == "" || envelope.Error.RequestID != h.Get("X-Request-Id") {
				t.Errorf("%s GET %s: %d %s", name, path, status, body)
			}
		}
	}
	// Browsers, and a proxy's own Basic authentication, still get pages.
	for name, header := range map[string]map[string]string{
		"browser":     {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		"proxy basic": {"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:secret"))},
		"axios":       {"Accept": "application/json, text/plain, */*"},
	} {
		if status, body, _ := do("GET", "/sign-in", header); status != http.StatusOK || !strings.Contains(body, "<form") {
			t.Errorf("%s: %d %.80s", name, status, body)
		}
	}
}
