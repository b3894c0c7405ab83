package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/views"
)

// twoFactorView is the account page's Two-factor authentication section:
// the user's factor as stored, new recovery codes once, and for an owner
// the account's rule.
func (h *Handlers) twoFactorView(c *fiber.Ctx, form views.Form) (views.TwoFactor, error) {
	act := actor(c)
	st, err := h.store.SecondFactorStatus(c.UserContext(), act)
	if err != nil {
		return views.TwoFactor{}, err
	}
	v := views.TwoFactor{Enabled: st.Enabled, RecoveryCodesLeft: st.RecoveryCodesLeft, Required: st.Required,
		Form: form, CSRF: csrfToken(c), Owner: act.Owns()}
	if st.Pending != nil {
		e := enrolmentView(st.Pending)
		v.Pending = &e
	}
	if c.Query("codes") == "1" {
		if _, err := h.takeOnce(c, onceRecoveryCodes, &v.RecoveryCodes); err != nil {
			return v, err
		}
	}
	if v.Owner {
		a, err := h.store.Account(c.UserContext(), act.AccountID)
		if err != nil {
			return v, err
		}
		v.AccountRequires = a.RequireSecondFactor
	}
	return v, nil
}

// twoFactorRefused shows a refused two-factor form on the account page.
func (h *Handlers) twoFactorRefused(c *fiber.Ctx, err error) error {
	var form views.Form
	status, err := formErrorAt(err, &form, map[string]string{"code": "code"})
	if err != nil {
		return err
	}
	showAt(c, "/account")
	return h.accountPage(c, status, accountForms{twoFactor: form})
}

// StartTwoFactor gives the signed-in user a new secret to confirm.
func (h *Handlers) StartTwoFactor(c *fiber.Ctx) error {
	if _, err := h.store.StartSecondFactorEnrolment(c.UserContext(), actor(c)); err != nil {
		return h.twoFactorRefused(c, err)
	}
	return redirect(c, "/account#two-factor")
}

// ConfirmTwoFactor turns the waiting enrolment on with a code; the
// recovery codes are shown once on the account page, with word that the
// user's other sessions were signed out. Codes are throttled
// per session, as passwords typed by a signed-in user are.
func (h *Handlers) ConfirmTwoFactor(c *fiber.Ctx) error {
	err := errPasswordThrottled(h.throttleReauth(c))
	var codes []string
	if err == nil {
		codes, err = h.store.ConfirmSecondFactor(c.UserContext(), actor(c), c.FormValue("code"))
	}
	if err != nil {
		return h.twoFactorRefused(c, err)
	}
	return h.showRecoveryCodes(c, codes, "Two-factor authentication is on. "+othersSignedOut)
}

// othersSignedOut is said once a second factor was turned on: the user's
// other sessions ended (models.ConfirmSecondFactor, AddPasskey).
const othersSignedOut = "Your other sessions were signed out."

// RegenerateRecoveryCodes replaces the recovery codes, given a code.
func (h *Handlers) RegenerateRecoveryCodes(c *fiber.Ctx) error {
	err := errPasswordThrottled(h.throttleCode(c))
	var codes []string
	if err == nil {
		codes, err = h.store.RegenerateRecoveryCodes(c.UserContext(), actor(c), c.FormValue("code"))
	}
	if err != nil {
		return h.twoFactorRefused(c, err)
	}
	return h.showRecoveryCodes(c, codes, "New recovery codes made; the old ones no longer work.")
}

func (h *Handlers) showRecoveryCodes(c *fiber.Ctx, codes []string, msg string) error {
	if err := h.setOnce(c, onceRecoveryCodes, codes); err != nil {
		return err
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/account?codes=1#two-factor")
}

// DisableTwoFactor turns the second factor off, given a code.
func (h *Handlers) DisableTwoFactor(c *fiber.Ctx) error {
	err := errPasswordThrottled(h.throttleCode(c))
	if err == nil {
		err = h.store.DisableSecondFactor(c.UserContext(), actor(c), c.FormValue("code"))
	}
	if err != nil {
		return h.twoFactorRefused(c, err)
	}
	if err := h.flash(c, "Two-factor authentication is off."); err != nil {
		return err
	}
	return redirect(c, "/account#two-factor")
}

// RequireTwoFactor is an owner requiring a second factor of every member
// of the account (require=on), or no longer.
func (h *Handlers) RequireTwoFactor(c *fiber.Ctx) error {
	on := c.FormValue("require") == "on"
	if err := h.store.SetRequireSecondFactor(c.UserContext(), actor(c), on); err != nil {
		return h.twoFactorRefused(c, err)
	}
	msg := "Members no longer need two-factor authentication."
	if on {
		msg = "Every member now needs two-factor authentication; those without it set it up at their next sign-in."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/account#two-factor")
}

// TwoFactorFormPage answers GET at a two-factor form's address, as
// FormPage does, with the section the forms are in.
func TwoFactorFormPage(c *fiber.Ctx) error { return redirect(c, "/account#two-factor") }
