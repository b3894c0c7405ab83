package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// member makes a new user, with an account of their own, a member of
// owner's account with role.
func (e *env) member(owner *models.User, email, role string) *models.User {
	e.t.Helper()
	modelstest.Member(e.t, e.store, owner.Actor(), email, role)
	u, err := e.store.UserByEmail(e.t.Context(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// switchTo makes the browser's session act on accountID.
func (b *browser) switchTo(accountID string) {
	b.e.t.Helper()
	b.post("/account/switch", url.Values{"account": {accountID}}).redirectsTo("/")
	b.get("/").expect(http.StatusOK)
}

// The dashboard's forms meet the domain's roles: a member changes the
// account's resources but not its webhooks or members; a viewer only
// reads and makes read-only keys; an owner manages members, and the page
// says why the last owner cannot go. The switcher picks the account every
// page acts on, and only among the user's own.
func TestDashboardActsWithTheMembersRole(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	account := *ada.AccountID
	bob := e.member(ada, "bob@example.com", models.RoleMember)
	vic := e.member(ada, "vic@example.com", models.RoleViewer)

	b := e.signedIn("bob@example.com")
	// Bob starts on his own account; the switcher offers Ada's.
	b.get("/members").expect(http.StatusOK).contains(`data-role="owner"`, `action="/account/switch"`,
		`<option value="`+account+`">ada@example.com (member)</option>`).lacks("vic@example.com")
	b.post("/account/switch", url.Values{"account": {*e.owner("stranger@example.com").AccountID}}).expect(http.StatusNotFound)
	b.switchTo(account)
	b.get("/members").expect(http.StatusOK).contains(`data-role="member"`, "vic@example.com", "Viewer (read-only)").
		lacks(`action="/members/` + vic.ID + `/role"`)
	b.post("/ssh-keys", url.Values{"name": {"bob's laptop"}, "public_key": {edKey}}).redirectsTo("/ssh-keys")
	b.post("/webhook", url.Values{"url": {"https://hooks.example.com/bob"}}).expect(http.StatusForbidden).
		contains("Your role in this account (member) does not allow you to manage")
	b.post("/members/"+vic.ID+"/role", url.Values{"role": {"owner"}}).expect(http.StatusForbidden).
		contains("does not allow you to manage")

	v := e.signedIn("vic@example.com")
	v.switchTo(account)
	v.get("/ssh-keys").expect(http.StatusOK).contains(`data-role="viewer"`, "bob&#39;s laptop")
	v.post("/ssh-keys", url.Values{"name": {"vic"}, "public_key": {edKey}}).expect(http.StatusForbidden).
		contains("Your role in this account (viewer)")
	v.get("/api-keys").expect(http.StatusOK).lacks(`<option value="full"`)
	v.post("/api-keys", url.Values{"name": {"full"}, "scope": {"full"}, "expires": {"never"}}).expect(http.StatusForbidden).
		contains("A viewer may create only read-only API keys")
	v.post("/api-keys", url.Values{"name": {"dash"}, "scope": {"read_only"}, "expires": {"never"}}).expect(http.StatusCreated)

	// The owner sees every member's keys, with whose each is, and who did what.
	a := e.signedIn("ada@example.com")
	a.get("/api-keys").expect(http.StatusOK).contains(`<td data-label="Member"><span class="truncate" title="bob@example.com">bob@example.com</span></td>`,
		`<td data-label="Member"><span class="truncate" title="vic@example.com">vic@example.com</span></td>`)
	a.get("/audit-events?resource_type=cloud.ssh_key").expect(http.StatusOK).contains(`<td data-label="Actor"><span class="truncate" title="bob@example.com">bob@example.com</span></td>`)
	a.get("/").expect(http.StatusOK).contains("bob@example.com · ")
	a.get("/audit-events/export?format=csv&resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains(",bob@example.com,member,lrn:cloud:user:" + bob.ID)
	a.get("/audit-events?resource_type=cloud.member").expect(http.StatusOK).
		contains("Member <a href=\"/members\">bob@example.com</a> added", "Member <a href=\"/members\">vic@example.com</a> added")
	// The owner revokes a member's key; the member cannot revoke the owner's.
	adaKey, _ := e.apiKey(ada, "ada's")
	keys, err := e.store.MemberAPIKeys(e.t.Context(), models.Actor{UserID: bob.ID, Role: models.RoleMember, AccountID: account})
	if err != nil || len(keys) != 1 {
		t.Fatalf("bob's keys: %v %v", keys, err)
	}
	b.post("/api-keys/"+adaKey.ID+"/revoke", nil).expect(http.StatusNotFound)
	a.post("/api-keys/"+keys[0].ID+"/revoke", nil).redirectsTo("/api-keys")
	a.get("/api-keys").expect(http.StatusOK).lacks(`<td data-label="Member">bob@example.com</td>`)
	// Roles change at the member's next request.
	a.get("/members").expect(http.StatusOK).contains(`action="/members/` + bob.ID + `/role"`)
	a.post("/members/"+bob.ID+"/role", url.Values{"role": {"viewer"}}).redirectsTo("/members")
	b.get("/ssh-keys").expect(http.StatusOK).contains(`data-role="viewer"`)
	b.post("/ssh-keys", url.Values{"name": {"again"}, "public_key": {edKey}}).expect(http.StatusForbidden)
	// The last owner stays, and the page says so.
	a.post("/members/"+ada.ID+"/role", url.Values{"role": {"member"}}).expect(http.StatusConflict).
		contains("An account always keeps at least one owner")
	a.post("/members/leave", nil).expect(http.StatusConflict).contains("last owner")
	// Removed, Vic's session on the account is over; Bob's goes on.
	a.post("/members/"+vic.ID+"/remove", nil).redirectsTo("/members")
	v.get("/ssh-keys").redirectsTo("/sign-in?next=%2Fssh-keys&notice=expired")
	b.get("/ssh-keys").expect(http.StatusOK)
	// Bob leaves; his session goes on in his own account.
	b.post("/members/leave", nil).redirectsTo("/")
	b.get("/members").expect(http.StatusOK).contains(`data-role="owner"`).lacks("ada@example.com")
	// Support staff belong to no account: the page is not theirs.
	e.user("help@example.com", models.RoleSupport)
	e.signedIn("help@example.com").get("/members").expect(http.StatusForbidden).contains("This page belongs to an account")
}

// A viewer keeps their own self-service: the forms to change their
// password, email and notifications, to leave, and to revoke their own key
// are marked data-viewer-allowed, which the style that hides a viewer's
// forms keeps; the account's other writes are not marked.
func TestViewersKeepTheirOwnSelfService(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	val := e.member(ada, "val@example.com", models.RoleViewer)
	b := e.signedIn("val@example.com")
	b.switchTo(*ada.AccountID)
	b.get("/account").expect(http.StatusOK).contains(
		`action="/account/password" class="stack narrow" novalidate data-viewer-allowed`,
		`action="/account/email" class="stack narrow" novalidate data-viewer-allowed`,
		`action="/account/notifications" class="stack" novalidate data-viewer-allowed`)
	b.get("/members/leave").expect(http.StatusOK).contains(`action="/members/leave" class="confirm-actions" data-viewer-allowed`)
	acting, err := e.store.MemberActorByEmail(e.t.Context(), ada.Email, val.Email)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := e.store.APIKeys(e.t.Context(), acting)
	if err != nil || len(keys) != 1 {
		t.Fatalf("val's keys %v, %v", keys, err)
	}
	b.get("/api-keys/" + keys[0].ID + "/revoke").expect(http.StatusOK).contains(`class="confirm-actions" data-viewer-allowed`)
	b.get("/ssh-keys").expect(http.StatusOK).lacks("data-viewer-allowed")
	b.post("/api-keys/"+keys[0].ID+"/revoke", url.Values{}).redirectsTo("/api-keys")
	b.post("/account/password", url.Values{"current_password": {password}, "new_password": {"a new password"},
		"new_password_confirm": {"a new password"}}).redirectsTo("/account")
}
