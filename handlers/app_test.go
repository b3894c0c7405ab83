package handlers

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// A panic in a handler is answered with the 500 envelope and logged, and
// the server keeps serving.
func TestPanicIsInternalErrorEnvelope(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "panic@example.com")
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		extraAPIRoutes: func(r fiber.Router) {
			r.Get("/boom", func(*fiber.Ctx) error { panic("kaboom") })
		}})
	for i := 0; i < 2; i++ {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/boom", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, raw := testserver.Test(t, app, req)
		var body struct {
			Error struct{ Code, Message, RequestID string } `json:"error"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("not JSON: %s", raw)
		}
		if res.StatusCode != 500 || body.Error.Code != "global/internal-error" {
			t.Fatalf("status %d body %s", res.StatusCode, raw)
		}
	}
}

func TestHealthz(t *testing.T) {
	store := modelstest.Open(t)
	app := New(Config{Store: store})
	res, _ := testserver.Test(t, app, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d, want 200", res.StatusCode)
	}
	_ = store.Close()
	res, _ = testserver.Test(t, app, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("healthz after close: %d, want 503", res.StatusCode)
	}
}
