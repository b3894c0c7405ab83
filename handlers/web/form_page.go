package web

import (
	"path"

	"github.com/gofiber/fiber/v2"
)

// FormPage answers GET at the address of a form that has no page of its
// own (/ssh-keys/generate, /tickets/:id/comments) with a redirect to the
// page the form is on: the address one level up. The browser lands there
// when it reloads, or goes Back and Forward, after the form's post was
// answered in place (a refusal shown beside the fields).
func FormPage(c *fiber.Ctx) error {
	return redirect(c, path.Dir(c.Path()))
}
