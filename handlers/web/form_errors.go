package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// formErrorAt is formError for a form that names fields differently from
// the domain input, or shows only some of them: names maps the input's
// field names to the form's, and a problem with a field the form does not
// show is said above the form, as a sentence.
func formErrorAt(err error, form *views.Form, names map[string]string) (int, error) {
	status, err := formError(err, form)
	if err != nil {
		return status, err
	}
	fields := form.Errors
	form.Errors = map[string]string{}
	var above []string
	for field, msg := range fields {
		if name, shown := names[field]; shown {
			form.Errors[name] = msg
		} else {
			above = append(above, views.Sentence(fieldLabel(field), msg))
		}
	}
	if len(above) > 0 {
		form.Message = strings.Join(above, " ")
	}
	return status, nil
}

// refused says why the domain refused an action that has no form of its
// own (a move, a redelivery): the status to answer and a sentence for
// the page, or the error itself when it is not about the request.
func refused(err error) (int, string, error) {
	var form views.Form
	status, err := formErrorAt(err, &form, nil)
	return status, form.Message, err
}

// fieldLabel names a field the way a sentence about it does: "severity",
// "comment body" becomes "Severity", "Comment body".
func fieldLabel(field string) string {
	return views.Capitalize(strings.NewReplacer("_", " ", ".", " ").Replace(field))
}

// showAt names the page a form post answers with, for htmx to put in the
// address bar in place of the form's action, which has no page to reload.
func showAt(c *fiber.Ctx, path string) {
	if c.Method() == fiber.MethodPost {
		c.Set("HX-Replace-Url", path)
	}
}

// requireOwner refuses pages that only make sense inside an account, such
// as a form whose domain operation support staff may not call: the domain
// refuses the change itself, this spares staff a form they cannot send.
func requireOwner(a models.Actor) error {
	if a.AccountID == "" {
		return errOwnersOnly
	}
	return nil
}

var errOwnersOnly = &models.Error{Code: models.CodeForbidden,
	Message:    "This page belongs to an account's owner.",
	Suggestion: "Support staff work from the ticket queue and the delivery log."}
