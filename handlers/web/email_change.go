package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// ChangeEmail sends a confirmation link to the new address (and a notice
// to the current one); the email changes only when the link is opened.
// The password it asks for is throttled per session, as a change of
// password is. A user without a password (joined through single
// sign-on) types none: they confirm who they are first
// (requireRecentAuth), and the domain checks that window again.
func (h *Handlers) ChangeEmail(c *fiber.Ctx) error {
	if _, u := signedIn(c); u != nil && !u.HasPassword() {
		if done, err := h.requireRecentAuth(c, "/account#email-change"); done || err != nil {
			return err
		}
	}
	ec := views.EmailChange{Form: views.Form{Values: formValues(c, "new_email")}}
	err := errPasswordThrottled(h.throttleReauth(c))
	if err == nil {
		err = h.store.RequestEmailChange(c.UserContext(), actor(c), models.EmailChangeInput{
			NewEmail: ec.Form.Value("new_email"), CurrentPassword: c.FormValue("current_password")})
	}
	if err != nil {
		status, err := formError(err, &ec.Form)
		if err != nil {
			return err
		}
		showAt(c, "/account")
		return h.accountPage(c, status, accountForms{email: ec})
	}
	if err := h.flash(c, "A confirmation link is on its way to "+ec.Form.Value("new_email")+
		". Your email changes when it is opened."); err != nil {
		return err
	}
	return redirect(c, "/account")
}

// ConfirmEmailForm shows the change a link was sent for, with a button:
// opening the link alone (a mail scanner does) changes nothing. A used,
// expired or unknown link gets the not-found page.
func (h *Handlers) ConfirmEmailForm(c *fiber.Ctx) error {
	p, err := h.store.CheckEmailChangeToken(c.UserContext(), c.Params("token"))
	if err != nil {
		return err
	}
	v := views.ConfirmEmail{Action: c.Path(), OldEmail: p.OldEmail, NewEmail: p.NewEmail, CSRF: csrfToken(c)}
	return h.page(c, fiber.StatusOK, "Confirm your new email", "", views.ConfirmEmailPage(v))
}

// ConfirmEmail makes the change and sends the browser to sign in (or
// home, when signed in) with the new address.
func (h *Handlers) ConfirmEmail(c *fiber.Ctx) error {
	p, err := h.store.ConfirmEmailChange(c.UserContext(), c.Params("token"))
	if err != nil {
		return err
	}
	if sess, _ := signedIn(c); sess != nil {
		if err := h.flash(c, "Your email is now "+p.NewEmail+"."); err != nil {
			return err
		}
		return redirect(c, "/account")
	}
	return redirect(c, "/sign-in?notice="+noticeEmailChanged)
}

// CancelEmailChangeForm is the "this was not me" link of a change's
// notice: a button, as opening the link alone (a mail scanner does)
// changes nothing. A used, expired or unknown link gets the not-found
// page.
func (h *Handlers) CancelEmailChangeForm(c *fiber.Ctx) error {
	if err := h.store.CheckEmailCancelToken(c.UserContext(), c.Params("token")); err != nil {
		return err
	}
	v := views.ConfirmEmail{Action: c.Path(), Cancel: true, CSRF: csrfToken(c)}
	return h.page(c, fiber.StatusOK, "Cancel the email change", "", views.ConfirmEmailPage(v))
}

// CancelEmailChange ends the pending change and sends the browser to
// sign in, where the notice suggests a new password.
func (h *Handlers) CancelEmailChange(c *fiber.Ctx) error {
	if err := h.store.CancelEmailChange(c.UserContext(), c.Params("token")); err != nil {
		return err
	}
	return redirect(c, "/sign-in?notice="+noticeEmailChangeCancelled)
}
