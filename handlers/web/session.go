package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
	"cloudplane/models"
)

const (
	// SessionCookie holds a signed-in user's session token.
	SessionCookie = "cloudplane_session"
	// csrfCookie holds the CSRF token of a visitor not yet signed in, so
	// that the sign-in and setup forms are protected too.
	csrfCookie = "cloudplane_csrf"
	csrfHeader = "X-CSRF-Token"
	csrfField  = "csrf_token"

	sessionLocal = "web.session"
	userLocal    = "web.user"
	expiredLocal = "web.expired"
	csrfLocal    = "web.csrf"
)

// LoadSession finds who is signed in from the session cookie. It lets
// everyone through; RequireUser turns visitors away.
func (h *Handlers) LoadSession(c *fiber.Ctx) error {
	token := c.Cookies(SessionCookie)
	if token == "" {
		return c.Next()
	}
	sess, u, err := h.store.SessionByToken(c.UserContext(), token)
	switch {
	case errors.Is(err, models.ErrNoSession):
		clearCookie(c, SessionCookie)
		c.Locals(expiredLocal, true)
	case err != nil:
		return err
	default:
		c.Locals(sessionLocal, sess)
		c.Locals(userLocal, u)
		observe.SetAccount(c, sess.Acting.AccountID)
	}
	return c.Next()
}

// RequireUser sends visitors who are not signed in to the sign-in page,
// which brings them back here afterwards.
func RequireUser(c *fiber.Ctx) error {
	if _, u := signedIn(c); u != nil {
		return c.Next()
	}
	q := url.Values{}
	if next := returnPath(c); next != "" {
		q.Set("next", next)
	}
	if expired, _ := c.Locals(expiredLocal).(bool); expired {
		q.Set("notice", noticeExpired)
	}
	to := "/sign-in"
	if len(q) > 0 {
		to += "?" + q.Encode()
	}
	return redirect(c, to)
}

// returnPath is the page to come back to after signing in: the address
// asked for on a GET; for a form sent (POST), the page the form was on,
// as htmx names it (HX-Current-URL) or the browser's Referer, when that is
// this site and a clean local path (localPath). The sign-in pages
// themselves are never returned to.
func returnPath(c *fiber.Ctx) string {
	if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		return localPath(c.OriginalURL())
	}
	from := c.Get("HX-Current-URL")
	if from == "" {
		from = c.Get(fiber.HeaderReferer)
	}
	u, err := url.Parse(from)
	if err != nil || u.Host == "" || u.Host != c.Hostname() || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	p := localPath(u.RequestURI())
	if p == "/sign-in" || strings.HasPrefix(p, "/sign-in?") || strings.HasPrefix(p, "/sign-in/") {
		return ""
	}
	return p
}

// signedIn returns the session and user of the request, or nils.
func signedIn(c *fiber.Ctx) (*models.Session, *models.User) {
	sess, _ := c.Locals(sessionLocal).(*models.Session)
	u, _ := c.Locals(userLocal).(*models.User)
	if sess == nil || u == nil {
		return nil, nil
	}
	return sess, u
}

// actor is the signed-in user as the domain sees them: acting on the
// session's account with their role there, read at this request.
func actor(c *fiber.Ctx) models.Actor {
	sess, u := signedIn(c)
	if u == nil {
		return models.Actor{}
	}
	return sess.Acting
}

var errCSRF = &models.Error{Code: models.CodeForbidden,
	Message:    "This form has expired or did not come from this site, so nothing was changed.",
	Suggestion: "Reload the page and try again."}

// CSRF refuses state-changing requests that do not carry the visitor's
// CSRF token, in the X-CSRF-Token header (htmx, via app.js) or the
// csrf_token form field (plain forms). Signed-in users have a token per
// session; others get one in a cookie. Requests the browser marks as
// cross-site are refused before any token is compared.
func CSRF(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	if c.Get("Sec-Fetch-Site") == "cross-site" {
		return errCSRF
	}
	want := ""
	if sess, _ := signedIn(c); sess != nil {
		want = sess.CSRFToken
	} else {
		want = c.Cookies(csrfCookie)
	}
	got := c.Get(csrfHeader)
	if got == "" {
		got = c.FormValue(csrfField)
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		if expired, _ := c.Locals(expiredLocal).(bool); expired {
			// The form outlived its session: nothing to protect, so say
			// what actually happened.
			// what actually happened, and come back to the form's page,
			// where drafts.js refills what was typed.
			q := url.Values{"notice": {noticeExpired}}
			if next := returnPath(c); next != "" {
				q.Set("next", next)
			}
			return redirect(c, "/sign-in?"+q.Encode())
		}
		return errCSRF
	}
	return c.Next()
}

// csrfToken is the token forms on this page must carry. A visitor
// without a session gets one in a cookie on first need.
func csrfToken(c *fiber.Ctx) string {
	if sess, _ := signedIn(c); sess != nil {
		return sess.CSRFToken
	}
	if t, ok := c.Locals(csrfLocal).(string); ok {
		return t
	}
	t := strings.Clone(c.Cookies(csrfCookie))
	if t == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		t = hex.EncodeToString(b[:])
		setCookie(c, csrfCookie, t)
	}
	c.Locals(csrfLocal, t)
	return t
}

// setCookie sets an HttpOnly, SameSite=Lax cookie for the whole site,
// Secure when the request came over TLS (directly or via a proxy that
// says so). It lives until the browser closes; the server ends sessions
// by itself after the idle and absolute timeouts.
func setCookie(c *fiber.Ctx, name, value string) {
	c.Cookie(&fiber.Cookie{
		Name: name, Value: value, Path: "/",
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: isTLS(c),
	})
}

func clearCookie(c *fiber.Ctx, name string) {
	c.Cookie(&fiber.Cookie{
		Name: name, Value: "", Path: "/", Expires: time.Unix(0, 0), MaxAge: -1,
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: isTLS(c),
	})
}

// isTLS reports whether the browser reached us over HTTPS: directly, or
// through a proxy in --trusted-proxies that says so in X-Forwarded-Proto.
// Fiber's Protocol reads that header only from a trusted peer because
// handlers.New always turns its trusted-proxy check on.
func isTLS(c *fiber.Ctx) bool { return c.Protocol() == "https" }
