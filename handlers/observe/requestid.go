package observe

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

const (
	requestIDHeader = "X-Request-Id"
	requestIDLocal  = "observe.request_id"
	maxRequestID    = 128
)

// RequestID returns the request's id, assigning one if the request failed
// before the middleware ran (an oversized body is refused before routing).
func RequestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(requestIDLocal).(string); ok {
		return id
	}
	return assignRequestID(c, models.NewID())
}

func assignRequestID(c *fiber.Ctx, id string) string {
	c.Locals(requestIDLocal, id)
	c.Set(requestIDHeader, id)
	c.SetUserContext(withRequestID(c.UserContext(), id))
	return id
}

// incomingID returns the X-Request-Id a trusted proxy sent, so one id
// follows the request through the proxy's log and ours; "" when there is
// none to keep. Without configured proxies fiber trusts every peer, hence
// the explicit flag.
func incomingID(c *fiber.Ctx, trustProxies bool) string {
	if !trustProxies || !c.IsProxyTrusted() {
		return ""
	}
	id := c.Get(requestIDHeader)
	if !validRequestID(id) {
		return ""
	}
	// A copy: fiber's header strings are reused after the request.
	return string([]byte(id))
}

// validRequestID accepts 1 to 128 visible ASCII characters: the id goes
// into headers and log lines, where control characters, spaces and
// unbounded length would let a client forge or bloat them.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '!' || id[i] > '~' {
			return false
		}
	}
	return true
}
