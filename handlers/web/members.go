package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Members lists the account's members with their roles. Owners get the
// controls to change a role and remove a member; everyone may leave.
func (h *Handlers) Members(c *fiber.Ctx) error {
	return h.membersPage(c, fiber.StatusOK, nil)
}

// MembersFormPage answers GET at a member form's address with the page.
func MembersFormPage(c *fiber.Ctx) error { return redirect(c, "/members") }

// SetMemberRole changes a member's role and returns to the list; a
// refusal (the last owner, a role that may not) is said on the page.
func (h *Handlers) SetMemberRole(c *fiber.Ctx) error {
	in := models.MemberInput{Member: strings.Clone(c.Params("id")), Role: strings.Clone(c.FormValue("role"))}
	m, err := h.store.SetMemberRole(c.UserContext(), actor(c), in)
	if err != nil {
		return h.memberRefused(c, err)
	}
	if err := h.flash(c, m.Email+" is now "+article(m.Role)+"."); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// ConfirmRemoveMember asks before taking a member out of the account.
func (h *Handlers) ConfirmRemoveMember(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	m, err := h.member(c, id)
	if err != nil {
		return err
	}
	return h.confirm(c, "Remove member", views.NavMembers, views.Confirm{
		Title:      "Remove " + m.Email + " from this account?",
		Text:       "Their API keys for this account are revoked and their sessions on it end at once, on every server. Their own accounts are not affected.",
		Action:     "/members/" + m.UserID + "/remove",
		Submit:     "Remove member",
		CancelHref: "/members",
	}, false)
}

// RemoveMember takes a member out of the account and returns to the list.
func (h *Handlers) RemoveMember(c *fiber.Ctx) error {
	m, err := h.store.RemoveMember(c.UserContext(), actor(c), models.MemberInput{Member: strings.Clone(c.Params("id"))})
	if err != nil {
		return h.memberRefused(c, err)
	}
	if err := h.flash(c, m.Email+" was removed; their API keys for this account are revoked."); err != nil {
		return err
	}
	return redirect(c, "/members")
}

// ConfirmLeaveAccount asks before the signed-in user leaves the account.
func (h *Handlers) ConfirmLeaveAccount(c *fiber.Ctx) error {
	return h.confirm(c, "Leave account", views.NavMembers, views.Confirm{
		Title:      "Leave this account?",
		Text:       "You lose access to it, and your API keys for it are revoked. An owner can add you again.",
		Action:     "/members/leave",
		Submit:     "Leave account",
		CancelHref: "/members",
		// Anyone may leave; the domain keeps the last owner.
		ViewerAllowed: true,
	}, false)
}

// LeaveAccount takes the signed-in user out of the account; the session
// goes on in another account of theirs, if any.
func (h *Handlers) LeaveAccount(c *fiber.Ctx) error {
	if _, err := h.store.LeaveAccount(c.UserContext(), actor(c)); err != nil {
		return h.memberRefused(c, err)
	}
	return redirect(c, "/")
}

// SwitchAccount makes the session act on another account of the user's.
func (h *Handlers) SwitchAccount(c *fiber.Ctx) error {
	if err := h.store.SwitchAccount(c.UserContext(), actor(c), strings.Clone(c.FormValue("account"))); err != nil {
		return err
	}
	return redirect(c, "/")
}

// member finds a member of the actor's account by user id.
func (h *Handlers) member(c *fiber.Ctx, id string) (*models.Member, error) {
	ms, err := h.store.Members(c.UserContext(), actor(c), "")
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.UserID == id {
			return &m, nil
		}
	}
	return nil, models.NotFound("member", id)
}

// memberRefused shows on the members page why a change was refused when
// the user can act on it (the last owner, their role); any other error
// gets the error page.
func (h *Handlers) memberRefused(c *fiber.Ctx, err error) error {
	e, ok := models.AsError(err)
	if !ok || (e.Code != models.CodeConflict && e.Code != models.CodeInsufficientScope && e.Code != models.CodeInvalidParameters) {
		return err
	}
	text := views.Sentence("", e.Message)
	if e.Suggestion != "" {
		text += " " + views.Sentence("", e.Suggestion)
	}
	showAt(c, "/members")
	return h.membersPage(c, statusOf(e), &views.Flash{Kind: views.Danger, Text: text})
}

func (h *Handlers) membersPage(c *fiber.Ctx, status int, notice *views.Flash) error {
	return h.membersPageWith(c, status, notice, views.Form{}, nil)
}

// membersPageWith is the Members page with the invite form as posted and,
// once, the link of an invitation just made when no mail is sent, and
// the single sign-on form as posted when one is given.
func (h *Handlers) membersPageWith(c *fiber.Ctx, status int, notice *views.Flash, invite views.Form, link *views.InvitationLink, sso ...views.Form) error {
	a := actor(c)
	if err := requireOwner(a); err != nil {
		return err // support staff: the page belongs to an account
	}
	ms, err := h.store.Members(c.UserContext(), a, "")
	if err != nil {
		return err
	}
	v := views.Members{CSRF: csrfToken(c), Manage: a.Owns(), Roles: models.MemberRoles, InviteForm: invite, NewLink: link}
	ssoForm := views.Form{}
	if len(sso) > 0 {
		ssoForm = sso[0]
	}
	if v.SSO, err = h.ssoSection(c, a, ssoForm); err != nil {
		return err
	}
	if v.Manage {
		if v.Invitations, err = h.pendingInvitations(c, a); err != nil {
			return err
		}
	}
	for _, m := range ms {
		v.Members = append(v.Members, views.Member{UserID: m.UserID, Email: m.Email, Role: m.Role,
			Since: m.CreatedAt, You: m.UserID == a.UserID})
	}
	return h.pageWithNotice(c, status, "Members", views.NavMembers, notice, views.MembersPage(v))
}

func article(role string) string {
	if role == models.RoleOwner {
		return "an owner"
	}
	return "a " + role
}
