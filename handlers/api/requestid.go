package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

const (
	requestIDHeader = "X-Request-Id"
	requestIDLocal  = "request_id"
)

// RequestIDs gives every request an id, echoed in X-Request-Id and in
// every error body, so a user's report can be matched to the server log.
func RequestIDs(c *fiber.Ctx) error {
	id := models.NewID()
	c.Locals(requestIDLocal, id)
	c.Set(requestIDHeader, id)
	return c.Next()
}

// RequestID returns the request's id, assigning one if the request failed
// before the RequestIDs middleware ran (for example, an oversized body).
func RequestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(requestIDLocal).(string); ok {
		return id
	}
	id := models.NewID()
	c.Locals(requestIDLocal, id)
	c.Set(requestIDHeader, id)
	return id
}
