package handlers

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// serve runs the app on a loopback port 0 until the test ends and returns
// its address.
func serve(t *testing.T) string {
	t.Helper()
	return serveStore(t, modelstest.Open(t))
}

// serveStore is serve over store.
func serveStore(t *testing.T, store *models.Store) string {
	t.Helper()
	return serveApp(t, New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
}

// serveApp serves app as cloudplane serve does, on a loopback port 0,
// until the test ends, and returns its address.
func serveApp(t *testing.T, app *fiber.App) string {
	t.Helper()
	return testserver.Serve(t, app, LingerOnRefusal).Addr
}

// rawRequest writes req as it is on a new connection and reads the answer:
// these requests are ones net/http clients refuse to send, and app.Test
// skips some of fasthttp's paths.
func rawRequest(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func get(path string, header string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + header + "Connection: close\r\n\r\n"
}

func malformedMultipart(path string) string {
	body := "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated"
	return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
		"Content-Length: " + itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Requests fasthttp refuses before routing: headers beyond the buffer, a
// malformed multipart body and a method it does not know. Under /api/ each
// is the JSON envelope with a request id matching X-Request-Id; elsewhere
// an HTML page with the dashboard's security headers.
func TestLowLevelRefusalsKeepTheirShape(t *testing.T) {
	addr := serve(t)
	huge := "X-Big: " + strings.Repeat("a", HeaderLimit) + "\r\n"
	within := "X-Big: " + strings.Repeat("a", HeaderLimit/2) + "\r\n"
	cases := []struct {
		name     string
		req      func(path string) string
		status   int
		pathLost bool // fasthttp resets the request first: JSON everywhere
	}{
		{"headers past the limit", func(p string) string { return get(p, huge) }, http.StatusRequestHeaderFieldsTooLarge, true},
		{"malformed multipart", malformedMultipart, http.StatusBadRequest, true},
		{"unknown method", func(p string) string { return strings.Replace(get(p, ""), "GET", "PROPFIND", 1) }, 0, false},
		{"bogus method", func(p string) string { return strings.Replace(get(p, ""), "GET", "G(T", 1) }, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name+" under /api/", func(t *testing.T) {
			res, body := rawRequest(t, addr, tc.req("/api/v1/regions"))
			expectEnvelope(t, res, body, tc.status)
		})
		t.Run(tc.name+" on a page", func(t *testing.T) {
			res, body := rawRequest(t, addr, tc.req("/sign-in"))
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"} {
				if res.Header.Get(h) == "" {
					t.Fatalf("answer lacks %s", h)
				}
			}
			if tc.pathLost {
				expectEnvelope(t, res, body, tc.status)
				return
			}
			if res.StatusCode < 400 || res.StatusCode >= 500 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
				!strings.Contains(string(body), "<html") {
				t.Fatalf("not an HTML error page (%d %s): %s", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
		})
	}
	// A header block within the budget is served.
	if res, body := rawRequest(t, addr, get("/healthz", within)); res.StatusCode != http.StatusOK {
		t.Fatalf("headers within the limit: %d %s", res.StatusCode, body)
	}
}

// expectEnvelope checks a 4xx JSON error envelope (of status, unless 0)
// whose request_id is the X-Request-Id header.
func expectEnvelope(t *testing.T, res *http.Response, body []byte, status int) {
	t.Helper()
	if (status != 0 && res.StatusCode != status) || res.StatusCode < 400 || res.StatusCode >= 500 {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, body)
	}
	var env struct {
		Error struct {
			Code, Message string
			RequestID     string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("not the JSON envelope (%s): %s", res.Header.Get("Content-Type"), body)
	}
	if env.Error.Code == "" || env.Error.Message == "" || env.Error.RequestID == "" || env.Error.RequestID != res.Header.Get("X-Request-Id") {
		t.Fatalf("envelope %+v, X-Request-Id %q", env.Error, res.Header.Get("X-Request-Id"))
	}
}
