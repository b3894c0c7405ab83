package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/ratelimit"
	"cloudplane/views"
)

// ForgotPasswordForm asks for the email to send a reset link to.
func (h *Handlers) ForgotPasswordForm(c *fiber.Ctx) error {
	if _, u := signedIn(c); u != nil {
		return redirect(c, "/account")
	}
	v := views.ForgotPassword{CSRF: csrfToken(c)}
	return h.page(c, fiber.StatusOK, "Forgot your password?", "", views.ForgotPasswordPage(v))
}

// ForgotPassword queues a reset link for the address when it has an
// account, and answers the same page, with the same status, either way:
// the mail is queued, not sent here, so the time taken tells little too.
// Requests are throttled per email and per client address (its /64 for
// IPv6), before the store is asked, so a refusal says nothing about the
// address either.
func (h *Handlers) ForgotPassword(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "email")}
	email := form.Value("email")
	v := views.ForgotPassword{Form: form, CSRF: csrfToken(c)}
	if email == "" {
		v.Form.Errors = map[string]string{"email": "Email is required."}
		return h.page(c, fiber.StatusUnprocessableEntity, "Forgot your password?", "", views.ForgotPasswordPage(v))
	}
	if wait := h.throttleReset(c, email); wait != "" {
		v.Form.Message = "Too many reset requests. Wait " + wait + ", then try again."
		return h.page(c, fiber.StatusTooManyRequests, "Forgot your password?", "", views.ForgotPasswordPage(v))
	}
	if err := h.store.RequestPasswordReset(c.UserContext(), email, c.IP()); err != nil {
		return err
	}
	v.Sent = true
	return h.page(c, fiber.StatusOK, "Forgot your password?", "", views.ForgotPasswordPage(v))
}

// throttleReset counts one reset request against the address's budget,
// then the email's, and returns how long to wait ("" when allowed).
func (h *Handlers) throttleReset(c *fiber.Ctx, email string) string {
	if wait := h.allow(c, h.limits.ResetPerAddress, "reset-ip:"+ratelimit.AddressKey(c.IP())); wait != "" {
		return wait
	}
	return h.allow(c, h.limits.ResetPerEmail, "reset-email:"+loginKey(email))
}
