package web

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Notices the sign-in page shows after a redirect, by ?notice= value.
const (
	noticeSignedOut = "signed-out"
	noticeExpired   = "expired"
	// noticeEmailChanged follows a confirmed change of email.
	noticeEmailChanged = "email-changed"
	// noticeEmailChangeCancelled follows a notice's cancel link.
	noticeEmailChangeCancelled = "email-change-cancelled"
)

var notices = map[string]views.Flash{
	noticeSignedOut:    {Kind: views.Success, Text: "You have signed out."},
	noticeExpired:      {Kind: views.Info, Text: "Your session has ended. Sign in again to continue."},
	noticeEmailChanged: {Kind: views.Success, Text: "Your email has changed. Sign in with the new address."},
	noticeEmailChangeCancelled: {Kind: views.Success,
		Text: "The email change is cancelled. Sign in and change your password, or use \"Forgot your password?\"."},
}

// SignInForm shows the sign-in page; a signed-in user goes home.
func (h *Handlers) SignInForm(c *fiber.Ctx) error {
	if _, u := signedIn(c); u != nil {
		return redirect(c, "/")
	}
	v := views.SignIn{Next: localPath(c.Query("next")), CSRF: csrfToken(c), SSO: h.ssoButtons()}
	if n, ok := notices[c.Query("notice")]; ok {
		v.Notice = &n
	}
	pending, err := h.store.SetupPending(c.UserContext())
	if err != nil {
		return err
	}
	v.SetupPending = pending
	return h.page(c, fiber.StatusOK, "Sign in", "", views.SignInPage(v))
}

// SignIn checks the email and password and starts a new session in
// place of any the browser had. A browser whose device cookie shows it
// signed in to this login before is throttled by that cookie's own
// budget and has its password checked first; any other attempt is
// throttled per account and address, per address and per account. A
// successful sign-in hands the browser a new device cookie.
func (h *Handlers) SignIn(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "email", "next")}
	v := views.SignIn{Form: form, Next: localPath(form.Value("next")), CSRF: csrfToken(c), SSO: h.ssoButtons()}
	email := form.Value("email")
	device, err := h.store.RecognizeDevice(c.UserContext(), c.Cookies(deviceCookie), email)
	if err != nil {
		return err
	}
	if wait := h.throttleSignIn(c, email, device); wait != "" {
		v.Form.Message = "Too many sign-in attempts. Wait " + wait + ", then try again."
		return h.page(c, fiber.StatusTooManyRequests, "Sign in", "", views.SignInPage(v))
	}
	_, token, err := h.store.SignIn(c.UserContext(), models.SignInInput{
		Email: email, Password: c.FormValue("password"),
		ReplacesToken: c.Cookies(SessionCookie), SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent), Device: device,
		Next: v.Next,
	})
	if step, ok := models.AsSecondStep(err); ok {
		return toSecondStep(c, step)
	}
	if models.IsBadCredentials(err) {
		h.metrics.SignInFailed()
		v.Form.Message = "The email or password is incorrect."
		return h.page(c, fiber.StatusUnprocessableEntity, "Sign in", "", views.SignInPage(v))
	} else if err != nil {
		status, err := formError(err, &v.Form) // an email the text rule refuses
		if err != nil {
			return err
		}
		return h.page(c, status, "Sign in", "", views.SignInPage(v))
	}
	startSession(c, token)
	h.rememberDevice(c, email)
	if v.Next == "" {
		v.Next = "/"
	}
	return redirect(c, v.Next)
}

// startSession hands the browser its new session and drops the
// visitor's CSRF cookie: from now on the session's token is the one.
func startSession(c *fiber.Ctx, token string) {
	setCookie(c, SessionCookie, token)
	clearCookie(c, csrfCookie)
}

// SignOut ends the session everywhere it is stored.
func (h *Handlers) SignOut(c *fiber.Ctx) error {
	if err := h.store.SignOut(c.UserContext(), c.Cookies(SessionCookie)); err != nil {
		return err
	}
	clearCookie(c, SessionCookie)
	return redirect(c, "/sign-in?notice="+noticeSignedOut)
}

// localPath returns p when it is a clean path on this site, else "": the
// sign-in page must not become an open redirect, nor a way to write into
// the Location or HX-Redirect header. Browsers drop tabs and newlines
// from a URL and read a backslash as a slash, so "/<tab>/evil" and
// "/\\evil" both mean "//evil": p, and its path once decoded, must be
// printable ASCII without a backslash, start with one slash only, and
// parse with no scheme, host or user.
func localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	for _, s := range []string{p, u.Path} {
		if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || !plainASCII(s) {
			return ""
		}
	}
	return strings.Clone(p)
}

// plainASCII reports whether s is printable ASCII without space or backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == '\\' {
			return false
		}
	}
	return true
}
