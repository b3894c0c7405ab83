package handlers

import (
	"encoding/base64"
	"log/slog"
	"mime"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/api"
	"cloudplane/models"
)

// collapseAPISlashes serves /api/v1//ssh-keys as /api/v1/ssh-keys: API
// clients join a base URL that ends in a slash with a path that starts
// with one, and the reference's clients do exactly that.
func collapseAPISlashes(c *fiber.Ctx) error {
	p := c.Path()
	if strings.HasPrefix(p, "/api/") && strings.Contains(p, "//") {
		var b strings.Builder
		b.Grow(len(p))
		for i := 0; i < len(p); i++ {
			if p[i] == '/' && i > 0 && p[i-1] == '/' {
				continue
			}
			b.WriteByte(p[i])
		}
		c.Path(b.String())
	}
	return c.Next()
}

// misdirectedAPIClient answers a dashboard path asked for by an API
// client (one that sends an API key, or accepts nothing but JSON) with the
// API's JSON 404 saying where the API lives, instead of the sign-in page's
// HTML, which such clients cannot parse.
func misdirectedAPIClient(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !sendsAPIKey(c.Get(fiber.HeaderAuthorization)) && !acceptsOnlyJSON(c.Get(fiber.HeaderAccept)) {
			return c.Next()
		}
		return api.WriteError(c, log, &models.Error{Code: models.CodeRouteNotFound,
			Message:    "No API route serves " + c.Method() + " " + c.Path() + "; the API lives under /api/v1",
			Suggestion: "Use a base URL that ends in /api/v1, as in /api/v1" + c.Path()})
	}
}

// sendsAPIKey reports whether an Authorization header carries an API key.
// Any Bearer token counts (browsers never send one on their own); Basic
// counts only with a cloudplane key in it, so a proxy's own Basic
// authentication in front of the dashboard keeps working.
func sendsAPIKey(auth string) bool {
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "bearer":
		return true
	case "basic":
		cred = strings.TrimSpace(cred)
		if strings.HasPrefix(cred, models.APIKeyPrefix) {
			return true
		}
		decoded, err := base64.StdEncoding.DecodeString(cred)
		return err == nil && strings.HasPrefix(string(decoded), models.APIKeyPrefix)
	}
	return false
}

// acceptsOnlyJSON reports whether an Accept header names JSON and nothing
// else a page could satisfy.
func acceptsOnlyJSON(accept string) bool {
	if accept == "" {
		return false
	}
	for _, part := range strings.Split(accept, ",") {
		media, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || (media != "application/json" && !strings.HasSuffix(media, "+json")) {
			return false
		}
	}
	return true
}
