package web_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestErrorPages(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	visitor := e.browser()
	visitor.get("/no/such/page").expect(http.StatusNotFound).
		contains("<title>Page not found · cloudplane</title>", "Error 404", `href="/"`).lacks("Sign out")

	b := e.signedIn("ada@example.com")
	b.get("/no/such/page").expect(http.StatusNotFound).contains("Page not found", "Sign out", "ada@example.com")
	b.htmx = true
	res := b.get("/no/such/page").expect(http.StatusNotFound).contains("Page not found").lacks("<!doctype html>")
	if res.Header.Get("HX-Retarget") != "#main" {
		t.Fatalf("htmx error not retargeted: %v", res.Header)
	}
	b.htmx = false

	// The API keeps its JSON envelope, right next to /api-keys.
	api := b.get("/api/nowhere").expect(http.StatusNotFound)
	if !strings.Contains(api.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("API 404 as %q", api.Header.Get("Content-Type"))
	}

	// A failure without a code is an internal error page with a request id.
	_ = e.store.Close()
	b.get("/").expect(http.StatusInternalServerError).contains("Something went wrong", "Request ID")
}
