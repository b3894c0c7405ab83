package web

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/views"
)

// ssoCookie binds a single sign-on under way to the browser that began
// it. SameSite Lax: the provider's redirect back is a top-level GET.
const ssoCookie = "cloudplane_sso"

// SSOStart begins a single sign-on with the provider in the path: it
// stores the attempt (state, nonce, PKCE verifier, ?next=) in the
// database, hands the browser the cookie it is bound to, and sends it to
// the provider. An unknown provider is 404. Each start writes a row, so
// it counts against the sign-in budget of the client's address (a bucket
// of its own): a client cannot fill the table.
func (h *Handlers) SSOStart(c *fiber.Ctx) error {
	p := h.ssoProvider(c)
	if p == nil {
		return fiber.ErrNotFound
	}
	if wait := h.allow(c, h.limits.SignInPerAddress, "sso-ip:"+ratelimit.AddressKey(c.IP())); wait != "" {
		return h.ssoError(c, fiber.StatusTooManyRequests, "Too many sign-in attempts", "Wait "+wait+", then try again.")
	}
	prov, err := h.sso.discover(c.UserContext(), p)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "identity provider unreachable", "provider", p.ID, "err", err)
		return h.ssoError(c, fiber.StatusBadGateway, p.Name+" cannot be reached",
			"Try again in a minute. If it goes on, tell your administrator.")
	}
	start, err := h.store.BeginSSOLogin(c.UserContext(), p.ID, localPath(c.Query("next")))
	if err != nil {
		return err
	}
	return h.toProvider(c, p, prov, start)
}

// SSOCallback is where the provider sends the browser back. The state
// must name an attempt begun in this browser (its cookie) within ten
// minutes and not used yet; the code is exchanged with the attempt's
// verifier and the ID token verified (issuer's keys, issuer, audience,
// expiry, nonce). Then models.SignInSSO decides who signs in (and may
// ask for the user's second factor), or, for an attempt begun by
// ConnectSSO, models.ConnectSSOIdentity connects the identity. Every
// failure is a page saying what to do, never a stack trace.
func (h *Handlers) SSOCallback(c *fiber.Ctx) error {
	p := h.ssoProvider(c)
	if p == nil {
		return fiber.ErrNotFound
	}
	ctx := c.UserContext()
	browser := c.Cookies(ssoCookie)
	c.Cookie(&fiber.Cookie{Name: ssoCookie, Value: "", Path: "/sso/", MaxAge: -1,
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: isTLS(c)})
	login, err := h.store.TakeSSOLogin(ctx, strings.Clone(c.Query("state")), browser)
	if err != nil {
		return h.ssoRefused(c, err)
	}
	connect, err := h.store.TakeSSOConnect(ctx, login) // nil: a sign-in
	if err != nil {
		return err
	}
	if login.Provider != p.ID {
		return h.ssoError(c, fiber.StatusForbidden, "This single sign-on attempt was started with another provider",
			"Go back to the sign-in page and try again.")
	}
	if e := c.Query("error"); e != "" {
		h.log.InfoContext(ctx, "identity provider refused the sign-in", "provider", p.ID, "error", e)
		return h.ssoError(c, fiber.StatusForbidden, p.Name+" did not sign you in",
			"Go back to the sign-in page and try again, or ask your administrator whether cloudplane is assigned to you.")
	}
	claims, err := h.sso.exchange(ctx, p, strings.Clone(c.Query("code")), login.Verifier, login.Nonce)
	if err != nil {
		h.log.WarnContext(ctx, "single sign-on refused", "provider", p.ID, "err", err)
		if errors.Is(err, errSSOToken) {
			return h.ssoError(c, fiber.StatusForbidden, "The answer of "+p.Name+" could not be verified",
				"Go back to the sign-in page and try again. If it goes on, tell your administrator.")
		}
		return h.ssoError(c, fiber.StatusBadGateway, p.Name+" cannot be reached", "Try again in a minute.")
	}
	if login.Purpose == models.SSOPurposeReauth {
		return h.ssoReauthenticated(c, p, login, claims)
	}
	if connect != nil {
		return h.ssoConnected(c, p, connect, claims)
	}
	// The cookie names the user's own login, which the provider's address
	// need not be (an identity connected with another one).
	loginEmail, err := h.store.SSOLoginEmail(ctx, p.ID, claims.Subject, claims.Email)
	if err != nil {
		return err
	}
	device, err := h.store.RecognizeDevice(ctx, c.Cookies(ssoDeviceCookie), loginEmail)
	if err != nil {
		return err
	}
	sess, token, err := h.store.SignInSSO(ctx, models.SSOSignInInput{Provider: p.ID, Subject: claims.Subject,
		Email: claims.Email, EmailVerified: claims.verified(p), ReplacesToken: c.Cookies(SessionCookie),
		SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent), Device: device, ProviderName: p.Name, Next: login.Next})
	if step, ok := models.AsSecondStep(err); ok {
		// One factor: the user's second is asked for, and the browser
		// becomes known only when it is given (finishSecondStep).
		return toSecondStep(c, step)
	} else if err != nil {
		return h.ssoRefused(c, err)
	}
	startSession(c, token)
	// Known under the user's own login, which the provider's address
	// (an identity connected with another one) need not be.
	u, err := h.store.User(ctx, sess.UserID)
	if err != nil {
		return err
	}
	h.rememberDevice(c, u.Email)
	next := login.Next
	if next == "" {
		next = "/"
	}
	return c.Redirect(next, fiber.StatusSeeOther)
}

// ssoRefused shows a domain refusal of a single sign-on on its page.
func (h *Handlers) ssoRefused(c *fiber.Ctx, err error) error {
	e, ok := models.AsError(err)
	if !ok || e.Code != models.CodeForbidden {
		return err
	}
	return h.ssoError(c, fiber.StatusForbidden, e.Message, e.Suggestion)
}

func (h *Handlers) ssoError(c *fiber.Ctx, status int, msg, suggestion string) error {
	v := views.SSOError{Title: "Single sign-on failed", Message: views.Sentence("", customerText(msg)),
		Suggestion: views.Sentence("", customerText(suggestion))}
	return h.page(c, status, "Single sign-on failed", "", views.SSOErrorPage(v))
}

func (h *Handlers) ssoProvider(c *fiber.Ctx) *ssoProvider {
	if h.sso == nil {
		return nil
	}
	return h.sso.byID[c.Params("id")]
}

// ssoButtons are the sign-in page's single sign-on buttons.
func (h *Handlers) ssoButtons() []views.SSOButton {
	if h.sso == nil {
		return nil
	}
	out := make([]views.SSOButton, 0, len(h.sso.providers))
	for _, p := range h.sso.providers {
		out = append(out, views.SSOButton{ID: p.ID, Name: p.Name})
	}
	return out
}

// ssoSection is the Members page's single sign-on section for an owner,
// with the link form as posted; nil when no provider is configured.
func (h *Handlers) ssoSection(c *fiber.Ctx, a models.Actor, form views.Form) (*views.SSOSection, error) {
	if h.sso == nil || len(h.sso.providers) == 0 || !a.Owns() {
		return nil, nil
	}
	domains, err := h.store.SSODomains(c.UserContext(), a)
	if err != nil {
		return nil, err
	}
	v := &views.SSOSection{Roles: models.MemberRoles, Form: form, CSRF: csrfToken(c)}
	for _, p := range h.sso.providers {
		v.Providers = append(v.Providers, views.Option{Value: p.ID, Label: p.Name})
	}
	for _, d := range domains {
		name := d.Provider
		if p := h.sso.byID[d.Provider]; p != nil {
			name = p.Name
		}
		v.Domains = append(v.Domains, views.SSODomain{Domain: d.Domain, ProviderName: name, DefaultRole: d.DefaultRole, LinkedBy: d.CreatedBy})
	}
	return v, nil
}

// LinkSSODomain links an email domain of the owner's to single sign-on
// and returns to the Members page; a refusal is said in the section.
func (h *Handlers) LinkSSODomain(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "domain", "provider", "default_role")}
	in := models.SSODomainInput{Domain: form.Value("domain"), Provider: form.Value("provider"), DefaultRole: form.Value("default_role")}
	d, err := h.store.LinkSSODomain(c.UserContext(), actor(c), in)
	if err != nil {
		return h.ssoLinkRefused(c, err, form)
	}
	if err := h.flash(c, d.Domain+" now signs in with single sign-on."); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// UnlinkSSODomain ends a domain's link and returns to the Members page.
func (h *Handlers) UnlinkSSODomain(c *fiber.Ctx) error {
	domain := strings.Clone(c.Params("domain"))
	if err := h.store.UnlinkSSODomain(c.UserContext(), actor(c), domain); err != nil {
		return h.ssoLinkRefused(c, err, views.Form{})
	}
	if err := h.flash(c, domain+" signs in with passwords again."); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// ssoLinkRefused shows the Members page with the refusal in the single
// sign-on section.
func (h *Handlers) ssoLinkRefused(c *fiber.Ctx, err error, form views.Form) error {
	e, ok := models.AsError(err)
	if !ok || statusOf(e) >= fiber.StatusInternalServerError {
		return err
	}
	form.Errors = e.Fields
	form.Message = strings.TrimSpace(views.Sentence("", e.Message) + " " + views.Sentence("", e.Suggestion))
	showAt(c, "/members")
	return h.membersPageWith(c, statusOf(e), nil, views.Form{}, nil, form)
}
