package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// SetupForm shows the first-run form while the link is valid; a used or
// unknown link gets the not-found page.
func (h *Handlers) SetupForm(c *fiber.Ctx) error {
	if err := h.store.CheckSetupToken(c.UserContext(), c.Params("token")); err != nil {
		return err
	}
	v := views.Setup{Action: c.Path(), CSRF: csrfToken(c)}
	return h.page(c, fiber.StatusOK, "Set up cloudplane", "", views.SetupPage(v))
}

// Setup creates the first owner and signs them in. A request without the
// link's token is turned away before it is throttled or hashed anything;
// one with it is throttled like a sign-in.
func (h *Handlers) Setup(c *fiber.Ctx) error {
	if err := h.store.CheckSetupToken(c.UserContext(), c.Params("token")); err != nil {
		return err
	}
	form := views.Form{Values: formValues(c, "email")}
	err := errPasswordThrottled(h.throttlePassword(c, form.Value("email")))
	var sess *models.Session
	var token string
	if err == nil {
		sess, token, err = h.store.CompleteSetup(c.UserContext(), models.SetupInput{
			Token: c.Params("token"), Email: form.Value("email"),
			Password: c.FormValue("password"), PasswordConfirm: c.FormValue("password_confirm"),
			SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent),
		})
	}
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		v := views.Setup{Action: c.Path(), Form: form, CSRF: csrfToken(c)}
		return h.page(c, status, "Set up cloudplane", "", views.SetupPage(v))
	}
	startSession(c, token)
	err = h.store.SetSessionFlash(c.UserContext(), sess.ID,
		"Your account is ready. The checklist below leads through the first steps.")
	if err != nil {
		return err
	}
	return redirect(c, "/")
}
