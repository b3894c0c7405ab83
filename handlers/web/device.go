package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// deviceCookie holds the device cookie of a browser that has signed in
// (models.IssueDeviceCookie). Only the sign-in form needs it, so it is
// sent nowhere else, and never with a request another site started.
const deviceCookie = "cloudplane_device"

// rememberDevice hands the browser a new device cookie for the login it
// has just signed in to. It outlives the session and signing out: it
// says the browser is known, not who is signed in. The sign-in has
// succeeded either way, so a failure to issue one is only logged.
func (h *Handlers) rememberDevice(c *fiber.Ctx, email string) {
	value, err := h.store.IssueDeviceCookie(c.UserContext(), email)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "no device cookie issued", "err", err)
		return
	}
	c.Cookie(&fiber.Cookie{
		Name: deviceCookie, Value: value, Path: "/sign-in",
		MaxAge:   int(models.DeviceCookieLifetime.Seconds()),
		HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Secure: isTLS(c),
	})
}
