package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Destructive actions (revoking a key, terminating an instance, deleting
// what an account owns) go through a confirmation, and the domain may
// still refuse them (the object is in use): the list then comes back
// with the reason above it.

// confirm answers the confirmation: a page of its own, or the dialog's
// content when htmx loads it into the dialog. blocked says why the action
// cannot be taken instead of asking.
func (h *Handlers) confirm(c *fiber.Ctx, title, nav string, v views.Confirm, blocked bool) error {
	v.CSRF = csrfToken(c)
	v.InDialog = c.Get("HX-Target") == "dialog"
	if v.InDialog {
		return renderAlone(c, views.ConfirmPage(title, v, blocked))
	}
	return h.page(c, fiber.StatusOK, title, nav, views.ConfirmPage(title, v, blocked))
}

// refusal is a change the domain refused for a reason the user can act
// on, such as deleting what is in use, as a notice for the top of the
// page; nil for any other error, which gets the error page.
func refusal(err error) *views.Flash {
	e, ok := models.AsError(err)
	if !ok || statusOf(e) != fiber.StatusUnprocessableEntity {
		return nil
	}
	text := views.Sentence("", e.Message)
	if e.Suggestion != "" {
		text += " " + views.Sentence("", e.Suggestion)
	}
	return &views.Flash{Kind: views.Danger, Text: text}
}
