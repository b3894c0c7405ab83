package web

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// MailLog shows support staff the outgoing mail, newest first: recipient,
// subject, kind, status, attempts, last error and times; never a
// message's links. Others get the forbidden page.
func (h *Handlers) MailLog(c *fiber.Ctx) error {
	status := c.Query("status")
	switch status {
	case "", models.MailPending, models.MailSent, models.MailFailed:
	default:
		return models.InvalidField("status", "must be pending, sent or failed")
	}
	msgs, err := h.store.MailLog(c.UserContext(), actor(c), status, c.Query("before"))
	if err != nil {
		return err
	}
	v := views.MailLog{Status: status}
	for _, m := range msgs {
		v.Messages = append(v.Messages, views.MailMessage{ID: m.ID, Kind: m.Kind, Recipient: m.Recipient,
			Subject: m.Subject, Status: m.Status, LastError: m.LastError, Attempts: m.Attempts,
			Created: m.CreatedAt, Updated: m.UpdatedAt, NextAttempt: m.NextAttemptAt, Sent: m.SentAt})
	}
	if len(msgs) == models.MailLogPage {
		q := url.Values{"before": {msgs[len(msgs)-1].ID}}
		if status != "" {
			q.Set("status", status)
		}
		v.Next = q.Encode()
	}
	return h.page(c, fiber.StatusOK, "Mail log", views.NavMail, views.MailLogPage(v))
}
