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

// Limits throttle what the dashboard lets one person do; a nil limiter
// is switched off. The password limiters count every form that checks or
// hashes a password (sign-in, setup, change of password) before bcrypt
// runs; models bounds how many hashes run at once on top.
type Limits struct {
	// SignInPerAccountAddress counts attempts on one account from one
	// address, tightly: a guesser slows themselves, not the owner
	// signing in from elsewhere.
	SignInPerAccountAddress ratelimit.Limiter
	// SignInPerAccount counts attempts per email address, loosely, so one
	// account cannot be guessed at speed from many addresses.
	SignInPerAccount ratelimit.Limiter
	// SignInPerAddress counts attempts per client address (an IPv6
	// client's /64), so one client cannot try many accounts.
	SignInPerAddress ratelimit.Limiter
	// SignInPerDevice counts sign-in attempts per device cookie: a
	// browser that signed in to the account before is counted here
	// instead of by the three limits above, so strangers' guesses,
	// which drain the account's budget, do not lock its owner out, and
	// a stolen or guessing device cookie locks out only itself.
	SignInPerDevice ratelimit.Limiter
	// SignInKnownDevicesPerAccount counts the attempts of all the known
	// devices of one account together, which strangers cannot reach:
	// each sign-in hands out a new device cookie with a budget of its
	// own, so without it a holder of the password could mint cookies
	// and take the password hashers' first place at will.
	SignInKnownDevicesPerAccount ratelimit.Limiter
	// Writes counts a signed-in user's state-changing requests, per
	// account (per user for support staff): the dashboard is no way
	// around the API's rate limit.
	Writes ratelimit.Limiter
	// ResetPerEmail and ResetPerAddress count "Forgot your password?"
	// requests per email and per client address, so the form can flood
	// neither one mailbox nor many.
	ResetPerEmail, ResetPerAddress ratelimit.Limiter
}

// LimitWrites counts every state-changing request of a signed-in user
// against Limits.Writes; it runs after CSRF, so a forged request spends
// nothing. Signing out and switching accounts are never refused. A
// refused htmx request leaves the page, and what was typed into it, in
// place and says why in the flash region; a plain form gets the 429 page
// (Back returns to the form).
func (h *Handlers) LimitWrites(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	_, u := signedIn(c)
	if u == nil || c.Path() == "/sign-out" || c.Path() == "/account/switch" {
		return c.Next()
	}
	// The account the session acts on pays, whoever of its members
	// writes: N members share one budget, and a member busy in another
	// account spends nothing of their own account's (nor does a former
	// member of the account created with them).
	key := "user:" + u.ID
	if a := actor(c); a.AccountID != "" {
		key = "account:" + a.AccountID
	}
	wait := h.allow(c, h.limits.Writes, key)
	if wait == "" {
		return c.Next()
	}
	msg := "Too many changes in a short time, so this one was not made. Wait " + wait + ", then try again."
	if !isFragment(c) {
		return &models.Error{Code: models.CodeRateLimited, Message: msg}
	}
	c.Set("HX-Retarget", "#flash")
	c.Set("HX-Reswap", "innerHTML show:window:top")
	return renderAlone(c.Status(fiber.StatusTooManyRequests), views.FlashMessage(views.Flash{Kind: views.Danger, Text: msg}))
}

// throttlePassword counts one password attempt on the account named by
// email, from the request's address (its /64 for IPv6), and returns how
// long to wait ("" when allowed). The pair is asked first and the account
// last, so an address already refused for this account spends nobody
// else's budget. A limiter that fails lets the attempt through: bcrypt
// still makes guessing slow.
func (h *Handlers) throttlePassword(c *fiber.Ctx, email string) string {
	email = loginKey(email)
	ip := ratelimit.AddressKey(c.IP())
	for _, lk := range []struct {
		l   ratelimit.Limiter
		key string
	}{
		{h.limits.SignInPerAccountAddress, email + " " + ip},
		{h.limits.SignInPerAddress, "ip:" + ip},
		{h.limits.SignInPerAccount, "email:" + email},
	} {
		if wait := h.allow(c, lk.l, lk.key); wait != "" {
			return wait
		}
	}
	return ""
}

// throttleSignIn counts one sign-in attempt: against the device cookie's
// own budget, then its account's known devices', when the browser is a
// device known to this login; else as throttlePassword does.
func (h *Handlers) throttleSignIn(c *fiber.Ctx, email string, device models.Device) string {
	if !device.Known() {
		return h.throttlePassword(c, email)
	}
	if wait := h.allow(c, h.limits.SignInPerDevice, device.LimitKey()); wait != "" {
		return wait
	}
	return h.allow(c, h.limits.SignInKnownDevicesPerAccount, "known:"+loginKey(email))
}

// throttleReauth counts one password check by a signed-in user (change of
// password, revealing a signing secret) against their session's own
// budget, as a known device's sign-in is counted: the session proves a
// past sign-in, so strangers draining the account's budget cannot lock
// its owner out of these forms, and a stolen session guesses no faster
// than a device cookie may.
func (h *Handlers) throttleReauth(c *fiber.Ctx) string {
	sess, _ := signedIn(c)
	return h.allow(c, h.limits.SignInPerDevice, "session:"+sess.ID)
}

// codeKey is the name under which throttlePassword counts the codes of
// userID's second factor per user ("email:" and this on SignInPerAccount).
func codeKey(userID string) string { return "second-factor:" + userID }

// throttleUserCode counts one check of a signed-in user's second-factor
// code (confirm it's you, turning the factor off, new recovery codes)
// against the same per-user budget as the second step of signing in: one
// user's six digits are guessed no faster by spreading the guesses over
// sessions, forms and half-finished sign-ins.
func (h *Handlers) throttleUserCode(c *fiber.Ctx) string {
	_, u := signedIn(c)
	return h.allow(c, h.limits.SignInPerAccount, "email:"+codeKey(u.ID))
}

// throttleCode is throttleReauth (the session's budget), then
// throttleUserCode.
func (h *Handlers) throttleCode(c *fiber.Ctx) string {
	if wait := h.throttleReauth(c); wait != "" {
		return wait
	}
	return h.throttleUserCode(c)
}

// CodeBudget is throttleUserCode as the middleware of
// /confirm-identity/code, whose handler counts the session's budget: a
// refused code comes back on the "Confirm it's you" page (429).
func (h *Handlers) CodeBudget(c *fiber.Ctx) error {
	if wait := h.throttleUserCode(c); wait != "" {
		return h.confirmRefused(c, localPath(c.FormValue("next")), &models.Error{Code: models.CodeRateLimited,
			Message: "Too many code attempts. Wait " + wait + ", then try again."}, nil)
	}
	return c.Next()
}

// loginKey is the email as the limiters count it: as the store finds it.
func loginKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// allow counts one request against key on l and returns how long to wait
// ("" when allowed, when l is off, or when it cannot be asked). A refusal
// sets the RateLimit and Retry-After headers.
func (h *Handlers) allow(c *fiber.Ctx, l ratelimit.Limiter, key string) string {
	if l == nil {
		return ""
	}
	res, err := l.Allow(c.UserContext(), key)
	if err != nil {
		h.log.WarnContext(c.UserContext(), "dashboard limiter unavailable; request let through", "err", err)
		return ""
	}
	if res.Allowed {
		return ""
	}
	ratelimit.Headers(res, c.Set)
	return waitText(int(math.Ceil(res.RetryAfter.Seconds())))
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

// errPasswordThrottled is nil when wait is "" (throttlePassword let the
// attempt through), else the refusal of a password form other than
// sign-in's; formError puts it above the form, as typed, with status 429.
func errPasswordThrottled(wait string) error {
	if wait == "" {
		return nil
	}
	return &models.Error{Code: models.CodeRateLimited,
		Message: "Too many password attempts. Wait " + wait + ", then try again."}
}
