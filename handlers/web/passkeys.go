package web

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/views"
)

// passkeyCookie holds the token of the browser's passkey ceremony
// between its options and its answer; the challenge is in the database.
const passkeyCookie = "passkey_ceremony"

// PasskeyOptions begins adding a passkey for the signed-in user: the
// options for navigator.credentials.create as JSON, the ceremony's token
// in an HttpOnly cookie.
func (h *Handlers) PasskeyOptions(c *fiber.Ctx) error {
	options, token, err := h.store.BeginPasskeyRegistration(c.UserContext(), actor(c), h.rp)
	if err != nil {
		return err
	}
	return sendPasskeyOptions(c, options, token)
}

// AddPasskey stores the passkey the browser made for the options, under
// the name given. A refusal is shown above the form (or beside the name).
// The first passkey signs the user's other sessions out, and says so.
func (h *Handlers) AddPasskey(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "name")}
	// Only for the message: the store decides, under the user's lock.
	had, err := h.store.UserHasPasskey(c.UserContext(), actor(c).UserID)
	if err != nil {
		return err
	}
	_, err = h.store.AddPasskey(c.UserContext(), actor(c), h.rp, models.AddPasskeyInput{
		Name: form.Value("name"), Token: takePasskeyCeremony(c), Credential: []byte(c.FormValue("credential"))})
	if err != nil {
		status, err := passkeyRefusal(err, &form)
		if err != nil {
			return err
		}
		showAt(c, "/account")
		return h.accountPage(c, status, accountForms{passkeys: form})
	}
	msg := "Passkey “" + form.Value("name") + "” added."
	if !had {
		msg += " " + othersSignedOut
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/account#passkeys")
}

// DeletePasskey removes one of the signed-in user's passkeys; any other
// id is not found. A refusal (the last passkey, when it is the second
// factor required of the user) is said in the section.
func (h *Handlers) DeletePasskey(c *fiber.Ctx) error {
	p, err := h.store.DeletePasskey(c.UserContext(), actor(c), c.Params("id"))
	if e, ok := models.AsError(err); ok && e.Code == models.CodeForbidden {
		var form views.Form
		status, _ := passkeyRefusal(err, &form)
		showAt(c, "/account")
		return h.accountPage(c, status, accountForms{passkeys: form})
	} else if err != nil {
		return err
	}
	if err := h.flash(c, "Passkey “"+p.Name+"” removed."); err != nil {
		return err
	}
	return redirect(c, "/account#passkeys")
}

// PasskeysFormPage answers GET at the passkey forms' addresses (post,
// redirect, get) with the section they belong to.
func PasskeysFormPage(c *fiber.Ctx) error {
	if strings.HasPrefix(c.Path(), "/sign-in/") {
		if _, u := signedIn(c); u != nil {
			return redirect(c, "/")
		}
		return redirect(c, "/sign-in")
	}
	return redirect(c, "/account#passkeys")
}

// PasskeySignInOptions begins a sign-in with a passkey alone: options
// for navigator.credentials.get as JSON, the token in a cookie. Each
// counts as a sign-in attempt from the client's address, so strangers
// cannot fill the database with ceremonies.
func (h *Handlers) PasskeySignInOptions(c *fiber.Ctx) error {
	if wait := h.allow(c, h.limits.SignInPerAddress, "ip:"+ratelimit.AddressKey(c.IP())); wait != "" {
		return &models.Error{Code: models.CodeRateLimited,
			Message: "Too many sign-in attempts. Wait " + wait + ", then try again."}
	}
	options, token, err := h.store.BeginPasskeySignIn(c.UserContext(), h.rp)
	if err != nil {
		return err
	}
	return sendPasskeyOptions(c, options, token)
}

// PasskeySignIn starts a session for the passkey's user in place of any
// the browser had, and hands the browser a new device cookie (its old
// one told the domain whether the browser is new to the user). A refused passkey (unknown, of a deactivated user,
// copied, or an expired request) is said on the sign-in page; a copied
// one is logged too.
func (h *Handlers) PasskeySignIn(c *fiber.Ctx) error {
	v := views.SignIn{Next: localPath(c.FormValue("next")), CSRF: csrfToken(c)}
	sess, token, err := h.store.PasskeySignIn(c.UserContext(), h.rp, models.PasskeySignInInput{
		Token: takePasskeyCeremony(c), Credential: []byte(c.FormValue("credential")),
		ReplacesToken: c.Cookies(SessionCookie), SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent),
		DeviceCookie: c.Cookies(deviceCookie)})
	if err != nil {
		if models.IsPasskeyCloned(err) {
			h.log.WarnContext(c.UserContext(), "passkey refused: its signature counter went back", "ip", c.IP())
		}
		h.metrics.SignInFailed()
		status, err := passkeyRefusal(err, &v.Form)
		if err != nil {
			return err
		}
		return h.page(c, status, "Sign in", "", views.SignInPage(v))
	}
	startSession(c, token)
	if u, err := h.store.User(c.UserContext(), sess.UserID); err == nil {
		h.rememberDevice(c, u.Email)
	}
	if v.Next == "" {
		v.Next = "/"
	}
	return redirect(c, v.Next)
}

func sendPasskeyOptions(c *fiber.Ctx, options []byte, token string) error {
	c.Cookie(&fiber.Cookie{Name: passkeyCookie, Value: token, Path: "/",
		MaxAge:   int(models.PasskeyCeremonyTTL / time.Second),
		HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode, Secure: isTLS(c)})
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Type("json", "utf-8")
	return c.Send(options)
}

// takePasskeyCeremony reads the ceremony's token and drops the cookie:
// the domain uses the ceremony up either way.
func takePasskeyCeremony(c *fiber.Ctx) string {
	token := strings.Clone(c.Cookies(passkeyCookie))
	clearCookie(c, passkeyCookie)
	return token
}

// passkeyRefusal is formError for passkey forms: a refused passkey
// (CodeForbidden) is said above the form, with a 403.
func passkeyRefusal(err error, form *views.Form) (int, error) {
	if e, ok := models.AsError(err); ok && e.Code == models.CodeForbidden {
		form.Message = strings.TrimSpace(views.Sentence("", e.Message) + " " + views.Sentence("", e.Suggestion))
		return fiber.StatusForbidden, nil
	}
	return formError(err, form)
}

// passkeysSection is the account page's passkeys section: the user's
// passkeys and the add form's state.
func (h *Handlers) passkeysSection(c *fiber.Ctx, form views.Form) (views.Passkeys, error) {
	keys, err := h.store.Passkeys(c.UserContext(), actor(c))
	if err != nil {
		return views.Passkeys{}, err
	}
	v := views.Passkeys{Form: form, CSRF: csrfToken(c)}
	for _, k := range keys {
		v.Keys = append(v.Keys, views.Passkey{ID: k.ID, Name: k.Name, Created: k.CreatedAt, LastUsed: k.LastUsedAt})
	}
	return v, nil
}
