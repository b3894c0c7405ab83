// Package web serves the dashboard: server-rendered pages over the same
// domain operations as the JSON API. Handlers parse a form into the
// domain input, call one store method and render a views component: the
// full page on a normal request, the same content as a fragment for htmx.
package web

import (
	"log/slog"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/metrics"
	"cloudplane/handlers/respond"
	"cloudplane/models"
	"cloudplane/views"
)

// Config is what the dashboard needs.
type Config struct {
	Store  *models.Store
	Log    *slog.Logger
	Limits Limits
	// Metrics counts sign-in failures; nil switches it off.
	Metrics *metrics.Metrics
	// MailLinksOnPage: no mail is sent (no --smtp-url), so the owner who
	// creates or resends an invitation sees its link once, to copy.
	MailLinksOnPage bool
	// RelyingParty is who passkeys are made for, from --base-url.
	RelyingParty models.RelyingParty
	// SSO is the OpenID Connect client; nil when no provider is configured.
	SSO *SSO
}

// Handlers serves the dashboard's pages.
type Handlers struct {
	store   *models.Store
	log     *slog.Logger
	limits  Limits
	metrics *metrics.Metrics

	mailLinksOnPage bool
	rp              models.RelyingParty
	sso             *SSO
}

// New returns the dashboard's handlers.
func New(cfg Config) *Handlers {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Handlers{store: cfg.Store, log: cfg.Log, limits: cfg.Limits, metrics: cfg.Metrics, mailLinksOnPage: cfg.MailLinksOnPage,
		rp: cfg.RelyingParty, sso: cfg.SSO}
}

// isFragment reports whether the request wants the content alone: htmx
// asked, and not to restore a page from history, which needs it whole.
func isFragment(c *fiber.Ctx) bool {
	return c.Get("HX-Request") == "true" && c.Get("HX-History-Restore-Request") != "true"
}

// render answers with content framed by the layout, or as a fragment for
// htmx. Pages are private and may hold a secret shown once, so no cache
// keeps them; Vary keeps fragments and pages apart in any cache that does.
func render(c *fiber.Ctx, status int, m views.Meta, content templ.Component) error {
	if status == fiber.StatusServiceUnavailable {
		c.Set(fiber.HeaderRetryAfter, respond.RetryAfterUnavailable)
	}
	page := views.Page(m, content)
	if isFragment(c) {
		page = views.Fragment(m, content)
	}
	return renderAlone(c.Status(status), page)
}

// renderAlone answers with a component and nothing around it, for htmx
// requests that target one element (the confirm dialog).
func renderAlone(c *fiber.Ctx, content templ.Component) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Vary("HX-Request")
	c.Type("html", "utf-8")
	return content.Render(c.UserContext(), c.Response().BodyWriter())
}

// redirect sends the browser to a page after a change: 303 See Other, so
// a reload does not repeat the change, or HX-Redirect for htmx.
func redirect(c *fiber.Ctx, to string) error {
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", to)
		if sameDocument(c.Get("HX-Current-URL"), to) {
			// Only the fragment differs: htmx's location.href would
			// scroll, not load, so it is told to reload too.
			c.Set("HX-Refresh", "true")
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Redirect(to, fiber.StatusSeeOther)
}

// sameDocument reports whether going from the page at current (a full
// URL, as htmx sends it) to the local address to changes only the
// fragment, which a browser does without loading the page.
func sameDocument(current, to string) bool {
	cur, err1 := url.Parse(current)
	next, err2 := url.Parse(to)
	return err1 == nil && err2 == nil && current != "" && next.Fragment != "" &&
		cur.Path == next.Path && cur.RawQuery == next.RawQuery
}

// meta frames a page for whoever is signed in. The session's flash is
// shown here, so it is cleared once rendered.
func (h *Handlers) meta(c *fiber.Ctx, title, nav string) (views.Meta, error) {
	m := views.Meta{Title: title, Nav: nav, CSRF: csrfToken(c)}
	sess, u := signedIn(c)
	if u == nil {
		return m, nil
	}
	m.User = viewUser(sess, u)
	if m.User.MemberRole != "" {
		accounts, err := h.store.MemberAccounts(c.UserContext(), u.ID)
		if err != nil {
			return m, err
		}
		for _, a := range accounts {
			m.User.Accounts = append(m.User.Accounts, views.AccountChoice{ID: a.AccountID, Label: a.OwnerEmail, Role: a.Role})
		}
	}
	if sess.Flash != "" {
		m.Flash = &views.Flash{Kind: views.Success, Text: sess.Flash}
		if err := h.store.ClearSessionFlash(c.UserContext(), sess.ID); err != nil {
			return m, err
		}
	}
	return m, nil
}

// viewUser is who the header names: for a member, with their role in the
// account the session acts on (the switcher's list is meta's to add).
func viewUser(sess *models.Session, u *models.User) *views.User {
	v := &views.User{Email: u.Email, Support: u.Role == models.RoleSupport}
	if !v.Support {
		v.MemberRole, v.AccountID = sess.Acting.Role, sess.Acting.AccountID
	}
	return v
}

// page renders content with the meta for title and nav.
func (h *Handlers) page(c *fiber.Ctx, status int, title, nav string, content templ.Component) error {
	return h.pageWithNotice(c, status, title, nav, nil, content)
}

// pageWithNotice is page with a notice, when given, in place of the
// session's flash.
func (h *Handlers) pageWithNotice(c *fiber.Ctx, status int, title, nav string, notice *views.Flash, content templ.Component) error {
	m, err := h.meta(c, title, nav)
	if err != nil {
		return err
	}
	if notice != nil {
		m.Flash = notice
	}
	return render(c, status, m, content)
}

// flash keeps msg for the signed-in user's next page.
func (h *Handlers) flash(c *fiber.Ctx, msg string) error {
	sess, _ := signedIn(c)
	if sess == nil {
		return nil
	}
	return h.store.SetSessionFlash(c.UserContext(), sess.ID, msg)
}

// formValues copies the named fields out of the request: Fiber reuses
// its buffers after the handler returns.
func formValues(c *fiber.Ctx, names ...string) map[string]string {
	v := make(map[string]string, len(names))
	for _, n := range names {
		v[n] = strings.Clone(c.FormValue(n))
	}
	return v
}

// filterValues reads a list's filters from the query string, copied and
// trimmed; a filter not given is "".
func filterValues(c *fiber.Ctx, names ...string) map[string]string {
	v := make(map[string]string, len(names))
	for _, n := range names {
		v[n] = strings.TrimSpace(strings.Clone(c.Query(n)))
	}
	return v
}

// filterQuery is the query string of a list's link that keeps its
// filters: the ones set, by name.
func filterQuery(values map[string]string) url.Values {
	q := url.Values{}
	for name, v := range values {
		if v != "" {
			q.Set(name, v)
		}
	}
	return q
}
