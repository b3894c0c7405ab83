package api

import (
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

const actorLocal = "actor"

// bearerKey extracts the API key from an Authorization header. Three
// forms are accepted, as the reference allows: "Bearer <key>",
// "Basic base64(<key>:)" (curl -u KEY:), and "Basic <key>" unencoded.
func bearerKey(header string) (string, bool) {
	scheme, value, found := strings.Cut(header, " ")
	if !found {
		return "", false
	}
	value = strings.TrimSpace(value)
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return value, value != ""
	case strings.EqualFold(scheme, "Basic"):
		if decoded, err := base64.StdEncoding.DecodeString(value); err == nil {
			user, _, _ := strings.Cut(string(decoded), ":")
			return user, user != ""
		}
		value = strings.TrimSuffix(value, ":")
		return value, value != ""
	}
	return "", false
}

// Actor returns the authenticated actor of an API request.
func Actor(c *fiber.Ctx) models.Actor {
	a, _ := c.Locals(actorLocal).(models.Actor)
	return a
}
