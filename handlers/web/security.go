package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/static"
)

// contentSecurityPolicy allows only this site's own files: no inline
// script or style, no inline event handlers, no eval, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders sets the headers every page and asset carries.
func SecurityHeaders(c *fiber.Ctx) error {
	SetSecurityHeaders(c)
	return c.Next()
}

// SetSecurityHeaders is SecurityHeaders for answers made outside the
// route chain (requests fasthttp refuses before routing).
func SetSecurityHeaders(c *fiber.Ctx) {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
}

// Static serves the embedded assets. Fingerprinted names change with
// their content, so browsers may keep them for a year.
func Static(c *fiber.Ctx) error {
	a, immutable, ok := static.Lookup(c.Params("*"))
	if !ok {
		return fiber.ErrNotFound
	}
	if immutable {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	c.Set(fiber.HeaderContentType, a.ContentType)
	return c.Send(a.Body)
}
