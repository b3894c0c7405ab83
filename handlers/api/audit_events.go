package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// AuditEvents answers one page of the account's audit log.
func (h *Handlers) AuditEvents(c *fiber.Ctx) error {
	page, err := h.store.AuditEvents(c.UserContext(), Actor(c), models.AuditEventsInput{
		Start:        c.Query("start"),
		End:          c.Query("end"),
		ResourceType: c.Query("resource_type"),
		PageToken:    c.Query("page_token"),
	})
	if err != nil {
		return err
	}
	body, err := encodeAuditPage(page)
	if err != nil {
		return err
	}
	// As c.JSON does: the body is this request's own, so fasthttp keeps it
	// without a copy.
	c.Response().SetBodyRaw(body)
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}
