package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// Images lists the machine image catalogue, every image in every region
// that offers it.
func (h *Handlers) Images(c *fiber.Ctx) error { return ok(c, models.Images) }
