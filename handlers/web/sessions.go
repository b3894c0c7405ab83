package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/useragent"
	"cloudplane/models"
	"cloudplane/views"
)

// sessionsSection is the account page's list of the user's sessions,
// with the browser and system named from each one's User-Agent.
func (h *Handlers) sessionsSection(c *fiber.Ctx) (views.Sessions, error) {
	sess, _ := signedIn(c)
	list, err := h.store.Sessions(c.UserContext(), actor(c))
	if err != nil {
		return views.Sessions{}, err
	}
	v := views.Sessions{CSRF: csrfToken(c)}
	for _, s := range list {
		v.Sessions = append(v.Sessions, views.SessionRow{ID: s.ID, Browser: useragent.Describe(s.UserAgent),
			Address: s.SourceIP, SignedIn: s.CreatedAt, LastSeen: s.LastSeenAt, Current: s.ID == sess.ID})
	}
	return v, nil
}

// EndSession signs the user out of one of their other sessions. A
// session that is not theirs is the not-found page, as one that has
// ended.
func (h *Handlers) EndSession(c *fiber.Ctx) error {
	if err := h.store.EndSession(c.UserContext(), actor(c), strings.Clone(c.Params("id"))); err != nil {
		return err
	}
	if err := h.flash(c, "That session was signed out."); err != nil {
		return err
	}
	return redirect(c, "/account#sessions")
}

// EndOtherSessions signs the user out everywhere but here.
func (h *Handlers) EndOtherSessions(c *fiber.Ctx) error {
	n, err := h.store.EndOtherSessions(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	msg := "Every other session was signed out."
	if n == 0 {
		msg = "You had no other session."
	} else if n == 1 {
		msg = "One other session was signed out."
	} else {
		msg = strconv.Itoa(n) + " other sessions were signed out."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/account#sessions")
}

// EndMemberSessions, for an owner, signs a member of the account out of
// every session they have.
func (h *Handlers) EndMemberSessions(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	n, err := h.store.EndMemberSessions(c.UserContext(), actor(c), id)
	if err != nil {
		return h.memberRefused(c, err)
	}
	msg := "That member had no session to end."
	if n > 0 {
		msg = "Every session of that member was ended (" + strconv.Itoa(n) + "); they must sign in again."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// requireRecentAuth lets a sensitive action through when the session's
// user proved who they are within models.ReauthWindow (done false);
// otherwise it has answered (done true): a 303, or HX-Redirect for htmx,
// to /confirm-identity, which brings the browser back to page afterwards.
// For a GET, page "" means the page asked for; a POST passes the GET page
// of its form, or "" for the GET of its own path (what was typed in it is
// not kept, and the confirm page says so).
//
// Every sensitive dashboard action calls it first (or has RecentAuth in
// its route): revealing a signing secret, creating a full-access API key,
// adding or removing a passkey, the second factor's forms, linking or
// unlinking a single sign-on domain, creating, pointing elsewhere or
// rotating a webhook endpoint, and changing the email of a user who has
// no password to type:
//
//	if done, err := h.requireRecentAuth(c, "/account"); done || err != nil {
//		return err
//	}
func (h *Handlers) requireRecentAuth(c *fiber.Ctx, page string) (done bool, err error) {
	sess, _ := signedIn(c)
	if sess == nil {
		return true, RequireUser(c)
	}
	if sess.RecentlyAuthenticated(h.store.Now()) {
		return false, nil
	}
	return true, h.askIdentity(c, page)
}

// askIdentity sends the browser to confirm who it is, then to page (""
// for the page asked for, on a GET).
func (h *Handlers) askIdentity(c *fiber.Ctx, page string) error {
	form := c.Method() != fiber.MethodGet
	if page == "" && !form {
		page = c.OriginalURL()
	} else if page == "" {
		page = c.Path()
	}
	next := localPath(page)
	if next == "" {
		next = "/"
	}
	to := "/confirm-identity?next=" + url.QueryEscape(next)
	if form {
		to += "&form=1"
	}
	return redirect(c, to)
}

// RecentAuth is requireRecentAuth as a route's middleware, for routes
// whose every request is sensitive; page is as requireRecentAuth takes it.
func (h *Handlers) RecentAuth(page string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if done, err := h.requireRecentAuth(c, page); done || err != nil {
			return err
		}
		return c.Next()
	}
}

// ConfirmIdentityForm is the "Confirm it's you" page.
func (h *Handlers) ConfirmIdentityForm(c *fiber.Ctx) error {
	return h.confirmIdentityPage(c, fiber.StatusOK, localPath(c.Query("next")), c.Query("form") != "", views.Form{})
}

func (h *Handlers) confirmIdentityPage(c *fiber.Ctx, status int, next string, fromForm bool, form views.Form) error {
	if next == "" {
		next = "/"
	}
	methods, err := h.identityMethods(c)
	if err != nil {
		return err
	}
	v := views.ConfirmIdentity{Methods: methods, Next: next, FromForm: fromForm, Form: form, CSRF: csrfToken(c)}
	return h.page(c, status, "Confirm it's you", "", views.ConfirmIdentityPage(v))
}

// ConfirmIdentity checks the password and, when right, marks the
// session as just authenticated and goes on to next. Attempts count
// against the session's own budget (throttleReauth), as every password
// check of a signed-in user does.
func (h *Handlers) ConfirmIdentity(c *fiber.Ctx) error {
	next := localPath(c.FormValue("next"))
	err := errPasswordThrottled(h.throttleReauth(c))
	if err == nil {
		err = h.store.ConfirmIdentity(c.UserContext(), actor(c), models.IdentityProof{Password: c.FormValue("password")})
	}
	if err != nil {
		var form views.Form
		status, err := formErrorAt(err, &form, map[string]string{"password": "password"})
		if err != nil {
			return err
		}
		return h.confirmIdentityPage(c, status, next, false, form)
	}
	if next == "" {
		next = "/"
	}
	return redirect(c, next)
}

// SessionsFormPage answers GET at the Sessions section's form addresses
// with the section, as FormPage does for other forms.
func SessionsFormPage(c *fiber.Ctx) error { return redirect(c, "/account#sessions") }
