package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/respond"
	"cloudplane/models"
)

// auditPageJSON is the reference's list body: the token is a sibling of
// data, null on the last page.
type auditPageJSON struct {
	Data      []respond.AuditEventJSON `json:"data"`
	PageToken *string                  `json:"page_token"`
}

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
	body := auditPageJSON{Data: make([]respond.AuditEventJSON, len(page.Events))}
	for i, e := range page.Events {
		body.Data[i] = respond.AuditEvent(e)
	}
	if page.NextToken != "" {
		body.PageToken = &page.NextToken
	}
	return c.JSON(body)
}
