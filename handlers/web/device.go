package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// deviceCookie holds the device cookie of a browser that has signed in
// (models.IssueDeviceCookie). Only the sign-in forms need it, so it is
// sent nowhere else: under /sign-in (password, passkey, second step),
// SameSite Strict, never with a request another site started.
const deviceCookie = "cloudplane_device"

// ssoDeviceCookie holds the same value for single sign-on's callback,
// under /sso/ and SameSite Lax: the identity provider's redirect back is
// a top-level GET another site started, which a Strict cookie would
// miss, and every single sign-on would look like a new browser. (Two
// names, because a response sets one cookie per name.)
const ssoDeviceCookie = "cloudplane_sso_device"

// rememberDevice hands the browser a new device cookie for the login it
// has just signed in to, by any way of signing in. It outlives the
// session and signing out: it says the browser is known, not who is
// signed in. The sign-in has succeeded either way, so a failure to issue
// one is only logged.
func (h *Handlers) rememberDevice(c *fiber.Ctx, email string) {
	value, err := h.store.IssueDeviceCookie(c.UserContext(), email)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "no device cookie issued", "err", err)
		return
	}
	for _, k := range []struct{ name, path, sameSite string }{
		{deviceCookie, "/sign-in", fiber.CookieSameSiteStrictMode},
		{ssoDeviceCookie, "/sso/", fiber.CookieSameSiteLaxMode},
	} {
		c.Cookie(&fiber.Cookie{
			Name: k.name, Value: value, Path: k.path,
			MaxAge:   int(models.DeviceCookieLifetime.Seconds()),
			HTTPOnly: true, SameSite: k.sameSite, Secure: isTLS(c),
		})
	}
}
