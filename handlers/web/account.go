package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Account shows the signed-in user's details and the password form.
func (h *Handlers) Account(c *fiber.Ctx) error {
	return h.accountPage(c, fiber.StatusOK, accountForms{})
}

// ChangePassword changes the signed-in user's password; their other
// sessions end. Attempts are throttled per session (throttleReauth): a
// stolen session must not become a fast way to guess the password. The
// current password it asks for is itself a proof of identity: the
// session counts as just authenticated (models.ReauthWindow) after it.
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
		return h.accountPage(c, status, accountForms{password: form})
	}
	if err := h.flash(c, "Password changed. Every other session was signed out."); err != nil {
		return err
	}
	return redirect(c, "/account")
}

// SaveNotifications records which emails the signed-in user gets: the
// ticked topics on, the others off. A name not offered to them is shown
// beside the checkboxes (422), and nothing changes.
func (h *Handlers) SaveNotifications(c *fiber.Ctx) error {
	on := formList(c, "notify")
	err := h.store.SetNotificationPreferences(c.UserContext(), actor(c), models.NotificationPreferencesInput{On: on})
	if err != nil {
		var form views.Form
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		showAt(c, "/account")
		return h.accountPage(c, status, accountForms{notices: form})
	}
	if err := h.flash(c, "Notification settings saved."); err != nil {
		return err
	}
	return redirect(c, "/account#notifications")
}

// accountForms are the states of the account page's forms after a post
// that one of them refused; the others show as stored.
type accountForms struct {
	password, notices, passkeys, twoFactor views.Form
	email                                  views.EmailChange
	sso                                    views.Form // Connected sign-ins
}

// accountPage renders the account page with its forms' states and the
// notification settings as stored.
func (h *Handlers) accountPage(c *fiber.Ctx, status int, forms accountForms) error {
	_, u := signedIn(c)
	email := forms.email
	act := actor(c)
	email.Email, email.CSRF, email.NoPassword = u.Email, csrfToken(c), !u.HasPassword()
	settings, err := h.store.NotificationSettings(c.UserContext(), act)
	if err != nil {
		return err
	}
	n := views.Notifications{Form: forms.notices, CSRF: csrfToken(c)}
	for _, s := range settings {
		n.Choices = append(n.Choices, views.Option{Value: s.Name, Label: s.Label, Note: s.Hint, Checked: s.On})
	}
	sessions, err := h.sessionsSection(c)
	if err != nil {
		return err
	}
	v := views.Account{Email: u.Email, Role: act.Role, Form: forms.password, EmailChange: email, Notifications: n,
		Sessions: sessions, HasPassword: u.HasPassword(), CSRF: csrfToken(c)}
	if v.Passkeys, err = h.passkeysSection(c, forms.passkeys); err != nil {
		return err
	}
	if v.TwoFactor, err = h.twoFactorView(c, forms.twoFactor); err != nil {
		return err
	}
	if v.Connections, err = h.ssoConnectionsSection(c, forms.sso); err != nil {
		return err
	}
	if act.AccountID != "" {
		a, err := h.store.Account(c.UserContext(), act.AccountID)
		if err != nil {
			return err
		}
		v.AccountID, v.AccountStatus = a.ID, a.Status
	}
	return h.page(c, status, "Account", views.NavAccount, views.AccountPage(v))
}
