package web

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// The second step's passkey: the script fetches the options, then posts
// the browser's answer.
const (
	secondStepPasskeyPath    = secondFactorPath + "/passkey"
	secondStepPasskeyOptions = secondStepPasskeyPath + "/options"
)

// SecondStepPasskeyOptions gives a user half signed in the options to
// answer with one of their own passkeys. The ceremony is bound to the
// pending sign-in (its cookie), not to a session or a cookie of its own;
// asking again replaces it, so nothing piles up.
func (h *Handlers) SecondStepPasskeyOptions(c *fiber.Ctx) error {
	return h.pendingPasskeyOptions(c, h.store.BeginPendingPasskey)
}

// pendingPasskeyOptions answers a half-signed-in browser with the
// options begin makes for its pending sign-in: a signed-in browser has
// none to ask for (409), an expired or exhausted pending sign-in is 404.
func (h *Handlers) pendingPasskeyOptions(c *fiber.Ctx,
	begin func(ctx context.Context, rp models.RelyingParty, token string) ([]byte, error)) error {
	if _, u := signedIn(c); u != nil {
		return fiber.ErrConflict
	}
	options, err := begin(c.UserContext(), h.rp, c.Cookies(pendingCookie))
	if models.IsPendingInvalid(err) {
		return fiber.ErrNotFound
	} else if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Type("json", "utf-8")
	return c.Send(options)
}

// SecondStepPasskey finishes a pending sign-in with the browser's answer
// to the passkey options, throttled and counted as a code is. A refused
// passkey (another user's, unknown, copied, or an expired request) is
// said on the step's page.
func (h *Handlers) SecondStepPasskey(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingSecondFactor)
	if p == nil {
		return err
	}
	if wait := h.throttleSecondFactor(c, p); wait != "" {
		return h.secondFactorPage(c, fiber.StatusTooManyRequests,
			views.Form{Message: "Too many attempts. Wait " + wait + ", then try again."})
	}
	done, err := h.store.CompletePendingPasskey(c.UserContext(), h.rp, c.Cookies(pendingCookie), []byte(c.FormValue("credential")))
	if err != nil && !models.IsPendingInvalid(err) {
		if models.IsPasskeyCloned(err) {
			h.log.WarnContext(c.UserContext(), "passkey refused: its signature counter went back", "ip", c.IP())
		}
		var form views.Form
		status, err := passkeyRefusal(err, &form)
		if err != nil {
			return err
		}
		return h.secondFactorPage(c, status, form)
	}
	return h.finishSecondStep(c, done, err, h.secondFactorPage)
}

// SecondStepPasskeyFormPage answers GET at the passkey step's addresses
// with the step's page.
func SecondStepPasskeyFormPage(c *fiber.Ctx) error { return redirect(c, secondFactorPath) }

// EnrolPasskeyOptions gives a user half signed in to enrol the options
// to make a passkey, bound to the pending sign-in as the second step's
// are.
func (h *Handlers) EnrolPasskeyOptions(c *fiber.Ctx) error {
	return h.pendingPasskeyOptions(c, h.store.BeginPendingPasskeyEnrolment)
}

// EnrolPasskey meets the required enrolment with the passkey the browser
// made, under the name given, and starts the session; throttled and
// counted as a code is. A refusal is said in the passkey form.
func (h *Handlers) EnrolPasskey(c *fiber.Ctx) error {
	p, err := h.pendingSignIn(c, models.PendingEnrol)
	if p == nil {
		return err
	}
	form := views.Form{Values: formValues(c, "name")}
	if wait := h.throttleSecondFactor(c, p); wait != "" {
		form.Message = "Too many attempts. Wait " + wait + ", then try again."
		return h.enrolPageWith(c, fiber.StatusTooManyRequests, views.Form{}, form)
	}
	done, err := h.store.CompletePendingPasskeyEnrolment(c.UserContext(), h.rp, c.Cookies(pendingCookie),
		models.AddPasskeyInput{Name: form.Value("name"), Credential: []byte(c.FormValue("credential"))})
	if err != nil && !models.IsPendingInvalid(err) {
		status, err := passkeyRefusal(err, &form)
		if err != nil {
			return err
		}
		return h.enrolPageWith(c, status, views.Form{}, form)
	}
	return h.finishSecondStep(c, done, err, h.enrolPage)
}

// EnrolPasskeyFormPage answers GET at the enrol passkey addresses with
// the enrol page.
func EnrolPasskeyFormPage(c *fiber.Ctx) error { return redirect(c, enrolPath) }
