package web

import (
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Deleting what an account owns (filesystems, rulesets) goes through a
// confirmation, and the domain may still refuse it (the object is in use):
// the list then comes back with the reason above it.

// confirmDelete answers the confirmation: a page of its own, or the
// dialog's content when htmx loads it into the dialog. blocked shows
// why it cannot be done instead of asking.
func (h *Handlers) confirmDelete(c *fiber.Ctx, title, nav string, v views.Confirm, blocked bool) error {
	v.CSRF = csrfToken(c)
	v.InDialog = c.Get("HX-Target") == "dialog"
	if v.InDialog {
		return renderAlone(c, views.DeletePage(title, v, blocked))
	}
	return h.page(c, fiber.StatusOK, title, nav, views.DeletePage(title, v, blocked))
}

// refusal is a change the domain refused for a reason the user can act
// on, such as deleting what is in use, as a notice for the top of the
// page; nil for any other error, which gets the error page.
func refusal(err error) *views.Flash {
	e, ok := models.AsError(err)
	if !ok || statusOf(e) != fiber.StatusUnprocessableEntity {
		return nil
	}
	text := sentence(e.Message)
	if e.Suggestion != "" {
		text += " " + sentence(e.Suggestion)
	}
	return &views.Flash{Kind: views.Danger, Text: text}
}

func sentence(s string) string {
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// pageWithNotice is page with a notice in place of the session's flash.
func (h *Handlers) pageWithNotice(c *fiber.Ctx, status int, title, nav string, notice *views.Flash, content templ.Component) error {
	m, err := h.meta(c, title, nav)
	if err != nil {
		return err
	}
	if notice != nil {
		m.Flash = notice
	}
	return render(c, status, m, content)
}
