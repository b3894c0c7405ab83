package web

import (
	"crypto/subtle"
	"errors"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/oauth2"

	"cloudplane/models"
	"cloudplane/views"
)

// connectionsPage is where the account page's Connected sign-ins section
// is, and where a connect returns to.
const connectionsPage = "/account#sso-connections"

// ConnectSSO begins a single sign-on with the provider in the path that
// connects the identity the user signs in with there to the signed-in
// user (models.BeginSSOConnect): it needs a recent authentication, then
// goes as SSOStart does. An unknown provider is 404.
//
// It is a link (ssoLinkFromThisSite): otherwise another site could
// connect whatever identity the browser is signed in with at the
// provider (an attacker's).
func (h *Handlers) ConnectSSO(c *fiber.Ctx) error {
	p := h.ssoProvider(c)
	if p == nil {
		return fiber.ErrNotFound
	}
	if err := ssoLinkFromThisSite(c); err != nil {
		return err
	}
	if done, err := h.requireRecentAuth(c, "/account"); done || err != nil {
		return err
	}
	prov, err := h.sso.discover(c.UserContext(), p)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "identity provider unreachable", "provider", p.ID, "err", err)
		return h.ssoError(c, fiber.StatusBadGateway, p.Name+" cannot be reached",
			"Try again in a minute. If it goes on, tell your administrator.")
	}
	start, err := h.store.BeginSSOConnect(c.UserContext(), actor(c), p.ID, connectionsPage)
	if errors.Is(err, models.ErrReauthRequired) { // the window closed meanwhile
		return h.askIdentity(c, "/account")
	} else if err != nil {
		return err
	}
	return h.toProvider(c, p, prov, start)
}

// ssoLinkFromThisSite lets a GET link start a single sign-on for the
// signed-in user (connect, confirm it's you) only with the session's CSRF
// token in ?csrf_token= and not from another site. Such starts are links,
// not forms, because the pages' Content-Security-Policy (form-action
// 'self') stops a form's redirect to the provider.
func ssoLinkFromThisSite(c *fiber.Ctx) error {
	if c.Get("Sec-Fetch-Site") == "cross-site" ||
		subtle.ConstantTimeCompare([]byte(c.Query(csrfField)), []byte(csrfToken(c))) != 1 {
		return errCSRF
	}
	return nil
}

// toProvider hands the browser the cookie start is bound to and sends it
// to the provider with start's authorization request (state, PKCE, nonce,
// and extra parameters).
func (h *Handlers) toProvider(c *fiber.Ctx, p *ssoProvider, prov *oidc.Provider, start *models.SSOStart, extra ...oauth2.AuthCodeOption) error {
	c.Cookie(&fiber.Cookie{Name: ssoCookie, Value: start.BrowserToken, Path: "/sso/",
		MaxAge: int(models.SSOLoginTTL.Seconds()), HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: isTLS(c)})
	opts := append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(start.Verifier),
		oauth2.SetAuthURLParam("nonce", start.Nonce)}, extra...)
	return c.Redirect(h.sso.oauth(p, prov).AuthCodeURL(start.State, opts...), fiber.StatusSeeOther)
}

// ssoConnected finishes, at the callback, a single sign-on begun by
// ConnectSSO: the verified identity becomes the signed-in user's, if the
// session is the one that began it. A refusal is the callback's page.
func (h *Handlers) ssoConnected(c *fiber.Ctx, p *ssoProvider, connect *models.SSOConnect, claims *ssoClaims) error {
	err := h.store.ConnectSSOIdentity(c.UserContext(), actor(c), connect, models.SSOIdentityInput{Provider: p.ID,
		Subject: claims.Subject, Email: claims.Email, EmailVerified: claims.verified(p)})
	if e, ok := models.AsError(err); ok && (e.Code == models.CodeForbidden || e.Code == models.CodeConflict) {
		return h.ssoError(c, statusOf(e), e.Message, e.Suggestion)
	} else if err != nil {
		return err
	}
	if err := h.flash(c, p.Name+" is connected: you can sign in with it."); err != nil {
		return err
	}
	return redirect(c, connectionsPage)
}

// DisconnectSSO removes one of the signed-in user's identities (provider
// and subject in the form) after a recent authentication; a refusal (the
// last way to sign in) is said in the section.
func (h *Handlers) DisconnectSSO(c *fiber.Ctx) error {
	if done, err := h.requireRecentAuth(c, "/account"); done || err != nil {
		return err
	}
	provider, subject := strings.Clone(c.FormValue("provider")), strings.Clone(c.FormValue("subject"))
	err := h.store.DisconnectSSOIdentity(c.UserContext(), actor(c), provider, subject)
	if errors.Is(err, models.ErrReauthRequired) {
		return h.askIdentity(c, "/account")
	} else if e, ok := models.AsError(err); ok && e.Code == models.CodeConflict {
		form := views.Form{Message: strings.TrimSpace(views.Sentence("", e.Message) + " " + views.Sentence("", e.Suggestion))}
		showAt(c, "/account")
		return h.accountPage(c, fiber.StatusConflict, accountForms{sso: form})
	} else if err != nil {
		return err
	}
	if err := h.flash(c, h.ssoName(provider)+" is disconnected: it signs you in no more."); err != nil {
		return err
	}
	return redirect(c, connectionsPage)
}

// SSOConnectionsFormPage answers GET at the section's form addresses
// (post, redirect, get) with the section.
func SSOConnectionsFormPage(c *fiber.Ctx) error { return redirect(c, connectionsPage) }

// ssoConnectionsSection is the account page's Connected sign-ins
// section; nil when no provider is configured.
func (h *Handlers) ssoConnectionsSection(c *fiber.Ctx, form views.Form) (*views.SSOConnections, error) {
	if h.sso == nil || len(h.sso.providers) == 0 {
		return nil, nil
	}
	ids, err := h.store.SSOIdentities(c.UserContext(), actor(c))
	if err != nil {
		return nil, err
	}
	v := &views.SSOConnections{Providers: h.ssoButtons(), Form: form, CSRF: csrfToken(c)}
	for _, id := range ids {
		v.Identities = append(v.Identities, views.SSOConnection{Provider: id.Provider, ProviderName: h.ssoName(id.Provider),
			Subject: id.Subject, Email: id.Email, Connected: id.CreatedAt})
	}
	return v, nil
}

// ssoName is a provider's name, or its id when it is configured no more.
func (h *Handlers) ssoName(id string) string {
	if h.sso != nil {
		if p := h.sso.byID[id]; p != nil {
			return p.Name
		}
	}
	return id
}
