package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Account shows the signed-in user's details and the password form.
func (h *Handlers) Account(c *fiber.Ctx) error {
	return h.accountPage(c, fiber.StatusOK, views.Form{})
}

// ChangePassword changes the signed-in user's password; their other
// sessions end. Attempts are throttled per session (throttleReauth): a
// stolen session must not become a fast way to guess the password.
func (h *Handlers) ChangePassword(c *fiber.Ctx) error {
	err := errPasswordThrottled(h.throttleReauth(c))
	if err == nil {
		err = h.store.ChangePassword(c.UserContext(), actor(c), models.ChangePasswordInput{
			CurrentPassword:    c.FormValue("current_password"),
			NewPassword:        c.FormValue("new_password"),
			NewPasswordConfirm: c.FormValue("new_password_confirm"),
		})
	}
	if err != nil {
		var form views.Form
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		showAt(c, "/account")
		return h.accountPage(c, status, form)
	}
	if err := h.flash(c, "Password changed. Every other session was signed out."); err != nil {
		return err
	}
	return redirect(c, "/account")
}

func (h *Handlers) accountPage(c *fiber.Ctx, status int, form views.Form) error {
	return h.accountPageWith(c, status, form, views.EmailChange{})
}

// accountPageWith renders the account page with both its forms' states.
func (h *Handlers) accountPageWith(c *fiber.Ctx, status int, form views.Form, email views.EmailChange) error {
	_, u := signedIn(c)
	act := actor(c)
	email.Email, email.CSRF = u.Email, csrfToken(c)
	v := views.Account{Email: u.Email, Role: act.Role, Form: form, EmailChange: email, CSRF: csrfToken(c)}
	if act.AccountID != "" {
		a, err := h.store.Account(c.UserContext(), act.AccountID)
		if err != nil {
			return err
		}
		v.AccountID, v.AccountStatus = a.ID, a.Status
	}
	return h.page(c, status, "Account", views.NavAccount, views.AccountPage(v))
}
