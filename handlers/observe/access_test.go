package observe

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// One-time link tokens never reach the access log, whether the path
// matched its route or fell through.
func TestAccessLogRedactsOneTimeLinks(t *testing.T) {
	var buf bytes.Buffer
	app := fiber.New()
	app.Use(Middleware(Config{Log: slog.New(slog.NewTextHandler(&buf, nil))}))
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	for _, r := range []string{"/setup/:token", "/reset-password/:token", "/confirm-email/:token", "/cancel-email-change/:token", "/invitations/:token"} {
		app.Get(r, ok)
	}
	app.Get("/filesystems/:id", ok)
	const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, p := range []string{"/setup/", "/reset-password/", "/confirm-email/", "/cancel-email-change/", "/invitations/"} {
		for _, path := range []string{p + token, p + token + "/extra"} {
			if _, err := app.Test(httptest.NewRequest("GET", path, nil)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := app.Test(httptest.NewRequest("GET", "/filesystems/fs-1", nil)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, token) {
		t.Fatalf("a token in the access log:\n%s", out)
	}
	if !strings.Contains(out, "path=/reset-password/REDACTED") || !strings.Contains(out, "path=/filesystems/fs-1") {
		t.Fatalf("paths not logged as expected:\n%s", out)
	}
}
