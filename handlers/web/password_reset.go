package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// PasswordResetForm shows the new-password form while the operator's
// reset link is valid; a used, expired or unknown link gets the not-found
// page.
func (h *Handlers) PasswordResetForm(c *fiber.Ctx) error {
	u, err := h.store.CheckPasswordResetToken(c.UserContext(), c.Params("token"))
	if err != nil {
		return err
	}
	v := views.PasswordReset{Action: c.Path(), Email: u.Email, CSRF: csrfToken(c)}
	return h.page(c, fiber.StatusOK, "Choose a new password", "", views.PasswordResetPage(v))
}

// ResetPassword sets the new password and signs the user in. The link is
// checked before the password is hashed, so an unknown link costs no hash.
func (h *Handlers) ResetPassword(c *fiber.Ctx) error {
	u, err := h.store.CheckPasswordResetToken(c.UserContext(), c.Params("token"))
	if err != nil {
		return err
	}
	form := views.Form{Values: map[string]string{}}
	sess, token, err := h.store.CompletePasswordReset(c.UserContext(), models.PasswordResetInput{
		Token: c.Params("token"), Password: c.FormValue("password"),
		PasswordConfirm: c.FormValue("password_confirm"), SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent),
	})
	if step, ok := models.AsSecondStep(err); ok { // the password is set; the code is still asked for
		return toSecondStep(c, step)
	}
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		v := views.PasswordReset{Action: c.Path(), Email: u.Email, Form: form, CSRF: csrfToken(c)}
		return h.page(c, status, "Choose a new password", "", views.PasswordResetPage(v))
	}
	startSession(c, token)
	if err := h.store.SetSessionFlash(c.UserContext(), sess.ID, "Your password has been changed."); err != nil {
		return err
	}
	return redirect(c, "/")
}
