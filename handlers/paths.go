package handlers

import (
	"bytes"
	"encoding/base64"
	"log/slog"
	"mime"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/api"
	"cloudplane/handlers/observe"
	"cloudplane/handlers/web"
	"cloudplane/models"
)

// refuseUnparsableTarget refuses a request whose target fasthttp could
// not parse, a control byte in it above all: fasthttp then leaves the path
// empty, which no route matches, and the request was answered the
// dashboard's 404 and logged as path="". The path is set to the target
// with its control bytes %-escaped, so the access log shows what came and
// the error handler picks the envelope under /api/.
func refuseUnparsableTarget(c *fiber.Ctx) error {
	if c.Path() != "" {
		return c.Next()
	}
	target := c.Request().Header.RequestURI()
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		target = target[:i]
	}
	c.Path(escapeControlBytes(target))
	observe.MarkUnmatched(c)
	if isAPIPath(c.Path()) {
		return errUnparsableTarget
	}
	// A page: 400, not the 422 of a form the dashboard gives this code.
	web.SetSecurityHeaders(c)
	return fiber.NewError(fiber.StatusBadRequest, errUnparsableTarget.Message)
}

var errUnparsableTarget = &models.Error{Code: models.CodeInvalidParameters,
	Message:    "The request path cannot be parsed: it contains a control character or is malformed",
	Suggestion: "Percent-encode the path's special characters"}

// escapeControlBytes is p with its ASCII control bytes written %XX.
func escapeControlBytes(p []byte) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for _, ch := range p {
		if ch < ' ' || ch == 0x7f {
			b.WriteByte('%')
			b.WriteByte(hex[ch>>4])
			b.WriteByte(hex[ch&0xf])
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// describeRateLimits gives every answer under /api/ the RateLimit
// headers: the guard's, or else Guard.Describe's. The path is read after
// the request ran, refuseUnparsableTarget and collapseAPISlashes having
// settled it.
func describeRateLimits(guard *api.Guard) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		if isAPIPath(c.Path()) {
			guard.Describe(c)
		}
		return err
	}
}

// apiNoRoute answers whatever reached it under /api, in any case, with
// the API's 404. (Not app.Use("/api"): a prefix match would swallow
// /api-keys, and would be case-sensitive.)
func apiNoRoute(c *fiber.Ctx) error {
	if !isAPIPath(c.Path()) {
		return c.Next()
	}
	observe.MarkUnmatched(c)
	return api.NoRoute(c)
}

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
