package web

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// InvitationPrefix is the path of invitation links; the token follows.
// Like every one-time link, the access log must not keep the token.
const InvitationPrefix = "/invitations/"

// Invitation is the page an invitation link opens: a password form for a
// new person, a join button for the invited user signed in, a way to sign
// in first (and come back) for an existing user, a refusal for someone
// else signed in. A link that no longer works answers 410 with why.
func (h *Handlers) Invitation(c *fiber.Ctx) error {
	token := strings.Clone(c.Params("token"))
	info, err := h.store.CheckInvitation(c.UserContext(), token)
	if err != nil {
		return h.invitationGone(c, err)
	}
	return h.invitationPage(c, fiber.StatusOK, token, info, views.Form{})
}

// AcceptInvitation joins the account: the signed-in user with the invited
// email, or a new person with the password they chose, who is then
// signed in. Either lands on the account's overview.
func (h *Handlers) AcceptInvitation(c *fiber.Ctx) error {
	ctx := c.UserContext()
	token := strings.Clone(c.Params("token"))
	info, err := h.store.CheckInvitation(ctx, token)
	if err != nil {
		return h.invitationGone(c, err)
	}
	if _, u := signedIn(c); u != nil {
		if u.Email != info.Email {
			return h.invitationPage(c, fiber.StatusForbidden, token, info, views.Form{})
		}
		inv, err := h.store.AcceptInvitation(ctx, actor(c), token)
		if err != nil {
			return h.invitationRefused(c, err, token, info)
		}
		if err := h.store.SwitchAccount(ctx, actor(c), inv.AccountID); err != nil {
			return err
		}
		if err := h.flash(c, "You joined the account of "+info.AccountOwnerEmail+" as "+article(inv.Role)+"."); err != nil {
			return err
		}
		return redirect(c, "/")
	}
	if info.UserExists {
		return h.invitationPage(c, fiber.StatusOK, token, info, views.Form{})
	}
	sess, sessionToken, err := h.store.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{Token: token,
		Password: c.FormValue("password"), PasswordConfirm: c.FormValue("password_confirm"), SourceIP: c.IP(), UserAgent: c.Get(fiber.HeaderUserAgent)})
	if step, ok := models.AsSecondStep(err); ok { // joined; the account requires a second factor
		return toSecondStep(c, step)
	}
	if err != nil {
		return h.invitationRefused(c, err, token, info)
	}
	startSession(c, sessionToken)
	if err := h.store.SetSessionFlash(ctx, sess.ID, "Welcome! You joined the account of "+info.AccountOwnerEmail+
		" as "+article(info.Role)+"."); err != nil {
		return err
	}
	return redirect(c, "/")
}

// invitationRefused shows a refusal of the accept on the invitation's
// page: a field error beside the field, a link that died meanwhile as
// gone, anything else as the error page.
func (h *Handlers) invitationRefused(c *fiber.Ctx, err error, token string, info *models.InvitationInfo) error {
	if models.IsInvitationGone(err) {
		return h.invitationGone(c, err)
	}
	form := views.Form{Values: map[string]string{}}
	status, err := formErrorAt(err, &form, map[string]string{"password": "password", "password_confirm": "password_confirm"})
	if err != nil {
		return err
	}
	return h.invitationPage(c, status, token, info, form)
}

func (h *Handlers) invitationPage(c *fiber.Ctx, status int, token string, info *models.InvitationInfo, form views.Form) error {
	path := InvitationPrefix + token
	v := views.Invitation{Action: path, Email: info.Email, Role: info.Role, Inviter: info.InviterEmail,
		Account: info.AccountOwnerEmail, Form: form, CSRF: csrfToken(c)}
	_, u := signedIn(c)
	switch {
	case u != nil && u.Email != info.Email:
		v.Mode, v.SignedInAs = views.InvitationWrongUser, u.Email
		if status == fiber.StatusOK {
			status = fiber.StatusForbidden
		}
	case u != nil:
		v.Mode = views.InvitationJoin
	case info.UserExists:
		v.Mode, v.SignInURL = views.InvitationSignIn, "/sign-in?"+url.Values{"next": {path}}.Encode()
	default:
		v.Mode = views.InvitationSignUp
	}
	return h.page(c, status, "Invitation", "", views.InvitationPage(v))
}

// invitationGone answers a link that does not work with a page saying
// why: 410 for one that worked once (accepted, revoked, replaced,
// expired), 404 for one that never did.
func (h *Handlers) invitationGone(c *fiber.Ctx, err error) error {
	e, ok := models.AsError(err)
	if !ok || e.Code != models.CodeNotFound {
		return err
	}
	status := fiber.StatusNotFound
	if models.IsInvitationGone(err) {
		status = fiber.StatusGone
	}
	v := views.Invitation{Mode: views.InvitationGone, GoneTitle: e.Message, GoneSuggestion: e.Suggestion}
	return h.page(c, status, "Invitation", "", views.InvitationPage(v))
}

// CreateInvitation invites an email with a role from the Members page;
// the page comes back with the invitation pending, and its link when no
// mail is sent.
func (h *Handlers) CreateInvitation(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "email", "role")}
	inv, err := h.store.CreateInvitation(c.UserContext(), actor(c), models.InviteInput{
		Email: form.Value("email"), Role: form.Value("role")})
	if err != nil {
		return h.invitationFormRefused(c, err, form)
	}
	return h.invitationIssued(c, inv, "Invitation sent to "+inv.Email+".")
}

// ResendInvitation sends a pending invitation again with a new link; the
// old link stops working.
func (h *Handlers) ResendInvitation(c *fiber.Ctx) error {
	inv, err := h.store.ResendInvitation(c.UserContext(), actor(c), "", strings.Clone(c.Params("id")))
	if err != nil {
		return h.invitationFormRefused(c, err, views.Form{})
	}
	return h.invitationIssued(c, inv, "Invitation sent again to "+inv.Email+"; the earlier link no longer works.")
}

// RevokeInvitation withdraws a pending invitation.
func (h *Handlers) RevokeInvitation(c *fiber.Ctx) error {
	inv, err := h.store.RevokeInvitation(c.UserContext(), actor(c), "", strings.Clone(c.Params("id")))
	if err != nil {
		return h.invitationFormRefused(c, err, views.Form{})
	}
	if err := h.flash(c, "The invitation of "+inv.Email+" was revoked; its link no longer works."); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// invitationIssued answers a created or resent invitation: with mail,
// back to the list (post/redirect/get); without, the page itself, the
// only time the link is shown, like an API key's secret.
func (h *Handlers) invitationIssued(c *fiber.Ctx, inv *models.IssuedInvitation, notice string) error {
	if !h.mailLinksOnPage {
		if err := h.flash(c, notice); err != nil {
			return err
		}
		return redirect(c, "/members")
	}
	showAt(c, "/members")
	link := &views.InvitationLink{Email: inv.Email, URL: c.BaseURL() + InvitationPrefix + inv.Token}
	return h.membersPageWith(c, fiber.StatusCreated, &views.Flash{Kind: views.Success,
		Text: "Invitation created for " + inv.Email + "."}, views.Form{}, link)
}

// invitationFormRefused shows why an invitation was refused on the
// Members page (a field, a member already, the daily cap); other errors
// get the error page.
func (h *Handlers) invitationFormRefused(c *fiber.Ctx, err error, form views.Form) error {
	if form.Values == nil {
		form.Values = map[string]string{}
	}
	status, err := formErrorAt(err, &form, map[string]string{"email": "email", "role": "role"})
	if err != nil {
		return err
	}
	showAt(c, "/members")
	return h.membersPageWith(c, status, nil, form, nil)
}

// pendingInvitations are the rows of the Members page's pending list.
func (h *Handlers) pendingInvitations(c *fiber.Ctx, a models.Actor) ([]views.PendingInvitation, error) {
	invs, err := h.store.Invitations(c.UserContext(), a, "")
	if err != nil {
		return nil, err
	}
	now := h.store.Now()
	out := make([]views.PendingInvitation, 0, len(invs))
	for _, i := range invs {
		out = append(out, views.PendingInvitation{ID: i.ID, Email: i.Email, Role: i.Role, InvitedBy: i.InviterEmail,
			Sent: i.CreatedAt, Expires: i.ExpiresAt, Expired: i.Expired(now)})
	}
	return out, nil
}
