package web

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// MailLog shows support staff the outgoing mail, newest first: recipient,
// subject, kind, status, attempts, last error and times. A message's link
// is shown only when it was written to the server's log instead of sent
// (no SMTP server) and still works, with a copy button, for staff to
// pass on; never to the requester. Others get the forbidden page.
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
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	links, err := h.store.UnsentLinks(c.UserContext(), actor(c), ids)
	if err != nil {
		return err
	}
	v := views.MailLog{Status: status}
	for _, m := range msgs {
		vm := views.MailMessage{ID: m.ID, Kind: m.Kind, Recipient: m.Recipient,
			Subject: m.Subject, Status: m.Status, LastError: m.LastError, Attempts: m.Attempts,
			Created: m.CreatedAt, Updated: m.UpdatedAt, NextAttempt: m.NextAttemptAt, Sent: m.SentAt}
		if l, ok := links[m.ID]; ok {
			vm.Link, vm.LinkExpires = c.BaseURL()+linkPaths[l.Kind]+l.Token, l.Expires
		}
		v.Messages = append(v.Messages, vm)
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

// linkPaths is the page each kind of message links to.
var linkPaths = map[string]string{
	models.MailPasswordReset:      "/reset-password/",
	models.MailEmailChangeConfirm: "/confirm-email/",
	models.MailEmailChangeNotice:  "/cancel-email-change/",
}
