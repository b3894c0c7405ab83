package web

import (
	"bytes"
	"encoding/base64"
	"image/png"

	"github.com/gofiber/fiber/v2"
	"github.com/pquerna/otp"

	"cloudplane/models"
	"cloudplane/views"
)

// pendingCookie holds the token of a sign-in waiting for its second step
// (models.PendingSignIn). It is not a session: LoadSession never reads
// it, so it opens no page.
const pendingCookie = "cloudplane_pending"

// onceRecoveryCodes carries new recovery codes to the account page, once.
const onceRecoveryCodes onceKind = "recovery-codes"

// Second-step pages.
const (
	secondFactorPath = "/sign-in/second-factor"
	enrolPath        = "/sign-in/enrol"
)

// toSecondStep answers a sign-in whose first factor was right but that
// needs a second step: the browser drops any session it had, keeps the
// pending sign-in's token in its own cookie, and goes to the step's page.
func toSecondStep(c *fiber.Ctx, step *models.SecondStepNeeded) error {
	clearCookie(c, SessionCookie)
	setCookie(c, pendingCookie, step.Token)
	if step.Reason == models.PendingEnrol {
		return redirect(c, enrolPath)
	}
	return redirect(c, secondFactorPath)
}

// pendingSignIn returns the browser's pending sign-in for reason, or
// nil after sending the browser back to the sign-in page (expired, or
// the cookie is for the other step), or home when it is signed in.
func (h *Handlers) pendingSignIn(c *fiber.Ctx, reason string) (*models.PendingSignIn, error) {
	if _, u := signedIn(c); u != nil {
		return nil, redirect(c, "/")
	}
	p, err := h.store.PendingSignInByToken(c.UserContext(), c.Cookies(pendingCookie))
	if models.IsPendingInvalid(err) || err == nil && p.Reason != reason {
		clearCookie(c, pendingCookie)
		return nil, redirect(c, "/sign-in?notice="+noticeExpired)
	}
	return p, err
}

// SecondFactorForm asks a user half signed in for a code of their
// second factor.
func (h *Handlers) SecondFactorForm(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingSecondFactor)
	if p == nil {
		return err
	}
	return h.secondFactorPage(c, fiber.StatusOK, views.Form{})
}

func (h *Handlers) secondFactorPage(c *fiber.Ctx, status int, form views.Form) error {
	v := views.SecondFactorStep{Form: form, CSRF: csrfToken(c), TOTP: true}
	if p, err := h.store.PendingSignInByToken(c.UserContext(), c.Cookies(pendingCookie)); err == nil {
		f, err := h.store.UserSecondFactors(c.UserContext(), p.UserID)
		if err != nil {
			return err
		}
		v.TOTP, v.Passkey = f.TOTP || !f.Passkey, f.Passkey
	}
	return h.page(c, status, "Two-factor authentication", "", views.SecondFactorPage(v))
}

// throttleSecondFactor counts one code tried by a user half signed in,
// with the password's limiters (per user and address, per address, per
// user): guessing six digits is no faster than guessing a password. Its
// per-user key is codeKey's, which every other check of the user's codes
// counts against too (throttleCode).
func (h *Handlers) throttleSecondFactor(c *fiber.Ctx, p *models.PendingSignIn) string {
	return h.throttlePassword(c, codeKey(p.UserID))
}

// SecondFactor finishes a pending sign-in with a TOTP or recovery code:
// the browser gets its session and goes where it first asked to.
func (h *Handlers) SecondFactor(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingSecondFactor)
	if p == nil {
		return err
	}
	if wait := h.throttleSecondFactor(c, p); wait != "" {
		return h.secondFactorPage(c, fiber.StatusTooManyRequests,
			views.Form{Message: "Too many attempts. Wait " + wait + ", then try again."})
	}
	done, err := h.store.CompletePendingSignIn(c.UserContext(), c.Cookies(pendingCookie), c.FormValue("code"))
	return h.finishSecondStep(c, done, err, h.secondFactorPage)
}

// finishSecondStep answers a second step: a wrong code on its page again
// (422), an expired pending sign-in back at the sign-in page, success
// with a new session.
func (h *Handlers) finishSecondStep(c *fiber.Ctx, done *models.SignedIn, err error,
	again func(*fiber.Ctx, int, views.Form) error) error {
	if models.IsPendingInvalid(err) {
		clearCookie(c, pendingCookie)
		return redirect(c, "/sign-in?notice="+noticeExpired)
	}
	if err != nil {
		var form views.Form
		status, err := formErrorAt(err, &form, map[string]string{"code": "code"})
		if err != nil {
			return err
		}
		if form.Message == "" && len(form.Errors) == 0 {
			form.Message = "The code is incorrect or was already used."
		}
		return again(c, status, form)
	}
	clearCookie(c, pendingCookie)
	startSession(c, done.Token)
	// The device cookie comes with the whole sign-in, not with the
	// password alone: a stolen password must not make a browser known.
	u, err := h.store.User(c.UserContext(), done.Session.UserID)
	if err != nil {
		return err
	}
	h.rememberDevice(c, u.Email)
	next := localPath(done.Next)
	if next == "" {
		next = "/"
	}
	if len(done.RecoveryCodes) > 0 {
		v := views.RecoveryCodes{Codes: done.RecoveryCodes, Next: next}
		return h.page(c, fiber.StatusOK, "Your recovery codes", "", views.RecoveryCodesPage(v))
	}
	return redirect(c, next)
}

// EnrolForm shows a user half signed in, whom an account requires to
// have a second factor, the authenticator to set up.
func (h *Handlers) EnrolForm(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingEnrol)
	if p == nil {
		return err
	}
	return h.enrolPage(c, fiber.StatusOK, views.Form{})
}

func (h *Handlers) enrolPage(c *fiber.Ctx, status int, form views.Form) error {
	return h.enrolPageWith(c, status, form, views.Form{})
}

// enrolPageWith is the enrol page with the passkey form's state.
func (h *Handlers) enrolPageWith(c *fiber.Ctx, status int, form, passkey views.Form) error {
	e, err := h.store.StartPendingEnrolment(c.UserContext(), c.Cookies(pendingCookie))
	if models.IsPendingInvalid(err) {
		clearCookie(c, pendingCookie)
		return redirect(c, "/sign-in?notice="+noticeExpired)
	} else if err != nil {
		return err
	}
	v := views.Enrol{Enrolment: enrolmentView(e), Form: form, CSRF: csrfToken(c), Passkey: passkey}
	return h.page(c, status, "Set up two-factor authentication", "", views.EnrolPage(v))
}

// Enrol confirms the required enrolment with a code and starts the
// session; the recovery codes are shown once.
func (h *Handlers) Enrol(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingEnrol)
	if p == nil {
		return err
	}
	if wait := h.throttleSecondFactor(c, p); wait != "" {
		return h.enrolPage(c, fiber.StatusTooManyRequests,
			views.Form{Message: "Too many attempts. Wait " + wait + ", then try again."})
	}
	done, err := h.store.CompletePendingEnrolment(c.UserContext(), c.Cookies(pendingCookie), c.FormValue("code"))
	return h.finishSecondStep(c, done, err, h.enrolPage)
}

// enrolmentView is an enrolment as the page shows it: the secret as text
// and its URL as a QR code, a PNG drawn here.
func enrolmentView(e *models.TOTPEnrolment) views.TOTPEnrolment {
	return views.TOTPEnrolment{Secret: e.Secret, QR: qrDataURL(e.URL)}
}

// qrDataURL draws the otpauth:// URL as a QR code in a data: URL ("" if
// it cannot), which the page's CSP allows as an image.
func qrDataURL(u string) string {
	key, err := otp.NewKeyFromURL(u)
	if err != nil {
		return ""
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}
