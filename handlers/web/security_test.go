package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/static"
)

// Every state-changing request needs the CSRF token; nothing changes
// without it.
func TestCSRF(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	key, _ := e.apiKey(owner, "keep")
	signedIn := e.signedIn("ada@example.com")
	visitor := e.browser()
	visitor.get("/sign-in")

	posts := []struct {
		path string
		form url.Values
		who  *browser
	}{
		{"/api-keys", url.Values{"name": {"sneaky"}}, signedIn},
		{"/api-keys/" + key.ID + "/revoke", nil, signedIn},
		{"/account/password", url.Values{"current_password": {password}, "new_password": {"hijacked!!1"}, "new_password_confirm": {"hijacked!!1"}}, signedIn},
		{"/sign-out", nil, signedIn},
		{"/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}}, visitor},
		{"/setup/" + strings.Repeat("a", 64), url.Values{"email": {"eve@example.com"}, "password": {password}, "password_confirm": {password}}, visitor},
	}
	for _, p := range posts {
		for _, token := range []string{"" /* missing */, strings.Repeat("0", 64) /* wrong */} {
			form := url.Values{"csrf_token": {token}}
			for k, v := range p.form {
				form[k] = v
			}
			p.who.post(p.path, form).expect(http.StatusForbidden).contains("This form has expired")
		}
	}
	// Nothing happened: same key, same password, still signed in.
	signedIn.get("/api-keys").expect(http.StatusOK).contains("keep").lacks("sneaky")
	if _, _, err := e.store.SignIn(context.Background(), models.SignInInput{Email: "ada@example.com", Password: password}); err != nil {
		t.Fatalf("password changed without a token: %v", err)
	}

	// htmx sends the token as a header instead of a form field.
	signedIn.header.Set("X-CSRF-Token", signedIn.csrf)
	signedIn.post("/api-keys", url.Values{"name": {"via header"}, "csrf_token": {""}}).expect(http.StatusCreated)

	// A request the browser marks as cross-site is refused even with the token.
	signedIn.header.Set("Sec-Fetch-Site", "cross-site")
	signedIn.post("/api-keys", url.Values{"name": {"cross"}}).expect(http.StatusForbidden)
}

var (
	inlineScript  = regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`)
	scriptWithout = regexp.MustCompile(`<script(?:(?:\s+[a-z-]+(?:="[^"]*")?)*)>`)
	eventHandler  = regexp.MustCompile(`\son[a-z]+=`)
	styleAttr     = regexp.MustCompile(`\sstyle=`)
)

// Pages carry the security headers and nothing the CSP would block: no
// inline script, no inline event handlers, no style attributes.
func TestSecurityHeadersAndNoInlineScript(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	created := b.post("/api-keys", url.Values{"name": {"ci"}}).expect(http.StatusCreated)
	pages := map[string]*page{
		"overview": b.get("/"), "keys": b.get("/api-keys"), "key created": created,
		"account": b.get("/account"), "not found": b.get("/nowhere"),
		"sign-in": e.browser().get("/sign-in"), "asset": e.browser().get(static.Path("app.css")),
	}
	for name, p := range pages {
		h := p.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "default-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", name, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q allows inline code", name, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", name, h)
		}
		if name == "asset" {
			continue
		}
		if inlineScript.MatchString(p.Body) || eventHandler.MatchString(p.Body) || styleAttr.MatchString(p.Body) {
			t.Errorf("%s: inline script, handler or style in\n%s", name, p.Body)
		}
		for _, tag := range scriptWithout.FindAllString(p.Body, -1) {
			if !strings.Contains(tag, `src="/static/`) {
				t.Errorf("%s: script not from /static: %s", name, tag)
			}
		}
		if h.Get("Cache-Control") != "no-store" || !strings.Contains(h.Get("Vary"), "HX-Request") {
			t.Errorf("%s: caching headers %v", name, h)
		}
	}
}

// Assets are served under fingerprinted names with long cache lifetimes.
func TestStaticAssets(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	page := b.get("/sign-in")
	for _, name := range []string{"app.css", "app.js", "vendor/htmx.min.js", "icon.svg"} {
		path := static.Path(name)
		if !strings.Contains(page.Body, path) && name != "icon.svg" {
			t.Errorf("page does not link %s", path)
		}
		res := b.get(path).expect(http.StatusOK)
		if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", path, cc)
		}
		if res.Body == "" || res.Header.Get("Content-Type") == "" {
			t.Errorf("%s: empty or untyped", path)
		}
	}
	if ct := b.get(static.Path("app.js")).Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("app.js served as %q", ct)
	}
	plain := b.get("/static/vendor/htmx.LICENSE").expect(http.StatusOK)
	if plain.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("plain name cached as %q", plain.Header.Get("Cache-Control"))
	}
	b.get("/static/app.0000000000.css").expect(http.StatusNotFound)
}
