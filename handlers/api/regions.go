package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// Regions lists the region catalogue.
func (h *Handlers) Regions(c *fiber.Ctx) error { return ok(c, models.Regions) }
