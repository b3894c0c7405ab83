package web

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/oauth2"

	"cloudplane/models"
	"cloudplane/views"
)

// identityMethods are the ways the signed-in user may confirm who they
// are: only those they have (no password form for a user who joined
// through single sign-on; single sign-on only through a configured
// provider of an identity linked to them).
func (h *Handlers) identityMethods(c *fiber.Ctx) (views.IdentityMethods, error) {
	m, err := h.store.ReauthMethods(c.UserContext(), actor(c))
	if err != nil {
		return views.IdentityMethods{}, err
	}
	v := views.IdentityMethods{Password: m.Password, TOTP: m.SecondFactor, Passkey: m.Passkey && h.rp.ID != ""}
	for _, id := range m.SSOProviders {
		if h.sso == nil {
			break
		}
		if p := h.sso.byID[id]; p != nil {
			v.SSOProviders = append(v.SSOProviders, views.SSOProvider{ID: p.ID, Name: p.Name})
		}
	}
	return v, nil
}

// confirmRefused shows the confirm page again with a refusal: a field
// error beside its field (names maps the domain's fields to the page's),
// anything else forbidden above the forms.
func (h *Handlers) confirmRefused(c *fiber.Ctx, next string, err error, names map[string]string) error {
	var form views.Form
	status, err := formErrorAt(err, &form, names)
	if err != nil {
		return err
	}
	return h.confirmIdentityPage(c, status, next, false, form)
}

// confirmed goes on to next once the session's user confirmed who they are.
func confirmed(c *fiber.Ctx, next string) error {
	if next == "" {
		next = "/"
	}
	return redirect(c, next)
}

// ConfirmIdentityWithCode confirms with a code of the user's second
// factor (TOTP or recovery code). Attempts count against the session's
// budget, as the password on the same page does.
func (h *Handlers) ConfirmIdentityWithCode(c *fiber.Ctx) error {
	next := localPath(c.FormValue("next"))
	err := errPasswordThrottled(h.throttleReauth(c))
	if err == nil {
		err = h.store.ConfirmIdentityWithCode(c.UserContext(), actor(c), strings.TrimSpace(c.FormValue("code")))
	}
	if err != nil {
		return h.confirmRefused(c, next, err, map[string]string{"code": "code"})
	}
	return confirmed(c, next)
}

// ConfirmIdentityPasskeyOptions begins a passkey check restricted to the
// signed-in user's own passkeys: options for navigator.credentials.get
// as JSON, the ceremony's token in a cookie.
func (h *Handlers) ConfirmIdentityPasskeyOptions(c *fiber.Ctx) error {
	options, token, err := h.store.BeginPasskeyCheck(c.UserContext(), h.rp, actor(c).UserID)
	if err != nil {
		return err
	}
	return sendPasskeyOptions(c, options, token)
}

// ConfirmIdentityWithPasskey confirms with the browser's answer to
// ConfirmIdentityPasskeyOptions; another user's passkey is refused.
func (h *Handlers) ConfirmIdentityWithPasskey(c *fiber.Ctx) error {
	next := localPath(c.FormValue("next"))
	err := h.store.ConfirmIdentityWithPasskey(c.UserContext(), actor(c), h.rp, takePasskeyCeremony(c),
		[]byte(c.FormValue("credential")))
	if err != nil {
		if models.IsPasskeyCloned(err) {
			h.log.WarnContext(c.UserContext(), "passkey refused: its signature counter went back", "ip", c.IP())
		}
		var form views.Form
		status, err := passkeyRefusal(err, &form)
		if err != nil {
			return err
		}
		return h.confirmIdentityPage(c, status, next, false, form)
	}
	return confirmed(c, next)
}

// ConfirmIdentityWithSSO sends the signed-in user to the provider in the
// path to sign in again there (prompt=login, max_age=0); its callback
// (SSOCallback, then ssoReauthenticated) confirms them and goes on to
// ?next=. It is a link, as ConnectSSO is (ssoLinkFromThisSite). A
// provider not configured is 404; one the user has no identity with is
// refused at the callback.
func (h *Handlers) ConfirmIdentityWithSSO(c *fiber.Ctx) error {
	p := h.ssoProvider(c)
	if p == nil {
		return fiber.ErrNotFound
	}
	if err := ssoLinkFromThisSite(c); err != nil {
		return err
	}
	next := localPath(c.Query("next"))
	prov, err := h.sso.discover(c.UserContext(), p)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "identity provider unreachable", "provider", p.ID, "err", err)
		return h.confirmIdentityPage(c, fiber.StatusBadGateway, next, false,
			views.Form{Message: p.Name + " cannot be reached. Try again in a minute, or confirm it's you another way."})
	}
	start, err := h.store.BeginSSOReauth(c.UserContext(), actor(c), p.ID, next)
	if err != nil {
		return err
	}
	return h.toProvider(c, p, prov, start, oauth2.SetAuthURLParam("prompt", "login"), oauth2.SetAuthURLParam("max_age", "0"))
}

// ssoReauthenticated ends a re-authentication through single sign-on
// whose ID token verified: the browser must still be signed in as the
// user who began it, and the token's identity must be theirs.
func (h *Handlers) ssoReauthenticated(c *fiber.Ctx, p *ssoProvider, login *models.SSOLogin, claims *ssoClaims) error {
	if sess, _ := signedIn(c); sess == nil {
		return h.ssoError(c, fiber.StatusForbidden, "You are no longer signed in", "Sign in again.")
	}
	var authTime time.Time
	if claims.AuthTime > 0 {
		authTime = time.Unix(int64(claims.AuthTime), 0)
	}
	err := h.store.ConfirmIdentityWithSSO(c.UserContext(), actor(c),
		models.SSOReauth{Login: login, Subject: claims.Subject, AuthTime: authTime})
	if err != nil {
		h.log.InfoContext(c.UserContext(), "single sign-on re-authentication refused", "provider", p.ID, "err", err)
		return h.confirmRefused(c, login.Next, err, nil)
	}
	return confirmed(c, login.Next)
}

// ConfirmIdentityFormPage answers GET at the confirm page's form
// addresses (post, redirect, get) with the page.
func ConfirmIdentityFormPage(c *fiber.Ctx) error { return redirect(c, "/confirm-identity") }
