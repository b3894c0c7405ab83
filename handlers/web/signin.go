package web

import (
	"fmt"
	"math"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/views"
)

// Notices the sign-in page shows after a redirect, by ?notice= value.
const (
	noticeSignedOut = "signed-out"
	noticeExpired   = "expired"
)

var notices = map[string]views.Flash{
	noticeSignedOut: {Kind: views.Success, Text: "You have signed out."},
	noticeExpired:   {Kind: views.Info, Text: "Your session has ended. Sign in again to continue."},
}

// SignInForm shows the sign-in page; a signed-in user goes home.
func (h *Handlers) SignInForm(c *fiber.Ctx) error {
	if _, u := signedIn(c); u != nil {
		return redirect(c, "/")
	}
	v := views.SignIn{Next: localPath(c.Query("next")), CSRF: csrfToken(c)}
	if n, ok := notices[c.Query("notice")]; ok {
		v.Notice = &n
	}
	return h.page(c, fiber.StatusOK, "Sign in", "", views.SignInPage(v))
}

// SignIn checks the email and password, throttled per address and per
// account, and starts a new session in place of any the browser had.
func (h *Handlers) SignIn(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "email", "next")}
	v := views.SignIn{Form: form, Next: localPath(form.Value("next")), CSRF: csrfToken(c)}
	email := strings.ToLower(strings.TrimSpace(form.Value("email")))
	if wait := h.throttle(c, "ip:"+c.IP(), "email:"+email); wait != "" {
		v.Form.Message = "Too many sign-in attempts. Wait " + wait + ", then try again."
		return h.page(c, fiber.StatusTooManyRequests, "Sign in", "", views.SignInPage(v))
	}
	_, token, err := h.store.SignIn(c.UserContext(), models.SignInInput{
		Email: form.Value("email"), Password: c.FormValue("password"),
		ReplacesToken: c.Cookies(sessionCookie), SourceIP: c.IP(),
	})
	if models.IsBadCredentials(err) {
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
	if v.Next == "" {
		v.Next = "/"
	}
	return redirect(c, v.Next)
}

// startSession hands the browser its new session and drops the
// visitor's CSRF cookie: from now on the session's token is the one.
func startSession(c *fiber.Ctx, token string) {
	setCookie(c, sessionCookie, token)
	clearCookie(c, csrfCookie)
}

// SignOut ends the session everywhere it is stored.
func (h *Handlers) SignOut(c *fiber.Ctx) error {
	if err := h.store.SignOut(c.UserContext(), c.Cookies(sessionCookie)); err != nil {
		return err
	}
	clearCookie(c, sessionCookie)
	return redirect(c, "/sign-in?notice="+noticeSignedOut)
}

// throttle counts one sign-in attempt against each key and returns how
// long to wait ("" when allowed). A limiter that fails lets the attempt
// through: bcrypt still makes guessing slow.
func (h *Handlers) throttle(c *fiber.Ctx, byAddress, byAccount string) string {
	for _, lk := range []struct {
		l   ratelimit.Limiter
		key string
	}{{h.limits.SignInPerAddress, byAddress}, {h.limits.SignInPerAccount, byAccount}} {
		if lk.l == nil {
			continue
		}
		res, err := lk.l.Allow(c.UserContext(), lk.key)
		if err != nil {
			h.log.Warn("sign-in limiter unavailable; attempt let through", "err", err)
			continue
		}
		if !res.Allowed {
			ratelimit.Headers(res, c.Set)
			return waitText(int(math.Ceil(res.RetryAfter.Seconds())))
		}
	}
	return ""
}

func waitText(seconds int) string {
	if seconds <= 1 {
		return "a second"
	}
	if seconds < 90 {
		return fmt.Sprintf("%d seconds", seconds)
	}
	return fmt.Sprintf("%d minutes", (seconds+59)/60)
}

// localPath returns p when it is a path on this site, else "": the
// sign-in page must not become an open redirect.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return ""
	}
	return strings.Clone(p)
}
