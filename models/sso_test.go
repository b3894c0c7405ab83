package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// ssoSignIn signs in as the provider "corp" says, with a verified email.
func ssoSignIn(t *testing.T, s *models.Store, subject, email string) (*models.Session, string, error) {
	t.Helper()
	return s.SignInSSO(context.Background(), models.SSOSignInInput{Provider: "corp", Subject: subject,
		Email: email, EmailVerified: true, SourceIP: "192.0.2.1", UserAgent: "test"})
}

// A sign-in under way works once, only from the browser that began it,
// and only within SSOLoginTTL.
func TestSSOLoginIsOnceBoundAndExpires(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	start, err := s.BeginSSOLogin(ctx, "corp", "/instances")
	if err != nil {
		t.Fatal(err)
	}
	if len(start.Verifier) < 43 || start.State == start.Nonce {
		t.Fatalf("start %+v", start)
	}
	got, err := s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	if err != nil || got.Provider != "corp" || got.Nonce != start.Nonce || got.Verifier != start.Verifier || got.Next != "/instances" {
		t.Fatalf("take: %+v %v", got, err)
	}
	_, err = s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	wantCode(t, err, models.CodeForbidden) // used once

	// Another browser's cookie: refused, and the state is spent.
	other, _ := s.BeginSSOLogin(ctx, "corp", "")
	_, err = s.TakeSSOLogin(ctx, other.State, "another browser")
	wantCode(t, err, models.CodeForbidden)
	_, err = s.TakeSSOLogin(ctx, other.State, other.BrowserToken)
	wantCode(t, err, models.CodeForbidden)

	late, _ := s.BeginSSOLogin(ctx, "corp", "")
	f.clock.Advance(models.SSOLoginTTL + time.Second)
	_, err = s.TakeSSOLogin(ctx, late.State, late.BrowserToken)
	wantCode(t, err, models.CodeForbidden)
}

// connectSSO connects the identity subject (with a verified email) of
// provider to actor, as the account page's Connect does.
func connectSSO(t *testing.T, s *models.Store, actor models.Actor, provider, subject, email string) error {
	t.Helper()
	ctx := context.Background()
	start, err := s.BeginSSOConnect(ctx, actor, provider, "/account")
	if err != nil {
		t.Fatal(err)
	}
	login, err := s.TakeSSOLogin(ctx, start.State, start.BrowserToken)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.TakeSSOConnect(ctx, login)
	if err != nil || c == nil {
		t.Fatalf("connect purpose %+v %v", c, err)
	}
	return s.ConnectSSOIdentity(ctx, actor, c, models.SSOIdentityInput{Provider: provider, Subject: subject,
		Email: email, EmailVerified: true})
}

// linkCorp makes alice@corp.example an owner who connected "corp" and
// links corp.example with role.
func linkCorp(t *testing.T, f *fixture, role string) models.Actor {
	t.Helper()
	owner := f.owner(t, "alice@corp.example")
	if err := connectSSO(t, f.store, owner, "corp", "alice-sub", "alice@corp.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.LinkSSODomain(context.Background(), owner,
		models.SSODomainInput{Domain: "Corp.Example", Provider: "corp", DefaultRole: role}); err != nil {
		t.Fatal(err)
	}
	return owner
}

// An owner links only their own domain, through a provider they signed
// in with, and only when nobody outside the account has an address
// there; a domain links to one account.
func TestLinkSSODomainGuards(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	owner := f.owner(t, "carol@corp.example")
	in := models.SSODomainInput{Domain: "corp.example", Provider: "corp"}

	_, err := s.LinkSSODomain(ctx, owner, in) // no identity yet
	wantField(t, err, "provider")
	// Signing in through corp does not give her one: corp.example is not
	// linked to it yet, so corp is not trusted with her address.
	_, _, err = ssoSignIn(t, s, "carol-sub", "carol@corp.example")
	wantCode(t, err, models.CodeForbidden)
	if err := connectSSO(t, s, owner, "corp", "carol-sub", "carol@corp.example"); err != nil {
		t.Fatal(err)
	}
	_, err = s.LinkSSODomain(ctx, owner, models.SSODomainInput{Domain: "other.example", Provider: "corp"})
	wantField(t, err, "domain")
	_, err = s.LinkSSODomain(ctx, f.alice, models.SSODomainInput{Domain: "gmail.com", Provider: "corp"})
	wantField(t, err, "domain")
	viewer, _ := modelstest.Member(t, s, owner, "vic@corp.example", models.RoleViewer)
	_, err = s.LinkSSODomain(ctx, viewer, in)
	wantCode(t, err, models.CodeInsufficientScope)

	outsider := f.owner(t, "dave@corp.example") // not a member of carol's account
	_, err = s.LinkSSODomain(ctx, owner, in)
	wantCode(t, err, models.CodeConflict)
	modelstest.Member(t, s, owner, outsider.Email, models.RoleMember)

	d, err := s.LinkSSODomain(ctx, owner, in)
	if err != nil || d.DefaultRole != models.RoleMember {
		t.Fatalf("link: %+v %v", d, err)
	}
	if n := modelstest.AuditCount(t, s, owner.AccountID, "sso_domain"); n != 1 {
		t.Fatalf("%d sso_domain events", n)
	}
	// dave, now a member, owns an account too and signs in through corp:
	// he cannot link the same domain to his own.
	if _, _, err := ssoSignIn(t, s, "dave-sub", "dave@corp.example"); err != nil {
		t.Fatal(err)
	}
	_, err = s.LinkSSODomain(ctx, outsider, in)
	wantCode(t, err, models.CodeDuplicate)

	if err := s.UnlinkSSODomain(ctx, owner, "corp.example"); err != nil {
		t.Fatal(err)
	}
	if n := modelstest.AuditCount(t, s, owner.AccountID, "sso_domain"); n != 2 {
		t.Fatalf("%d sso_domain events after unlink", n)
	}
	wantCode(t, s.UnlinkSSODomain(ctx, owner, "corp.example"), models.CodeNotFound)
}

// A newcomer from a linked domain joins the account just in time with its
// default role and no password; the sign-in records the provider.
func TestSSOJustInTimeJoin(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	owner := linkCorp(t, f, models.RoleViewer)

	sess, token, err := ssoSignIn(t, s, "new-sub", "New@Corp.Example")
	if err != nil {
		t.Fatal(err)
	}
	got, u, err := s.SessionByToken(ctx, token)
	if err != nil || got.ID != sess.ID {
		t.Fatal(err)
	}
	if u.Email != "new@corp.example" || u.AccountID != nil || u.PasswordHash != "" {
		t.Fatalf("user %+v", u)
	}
	if got.Acting.AccountID != owner.AccountID || got.Acting.Role != models.RoleViewer || got.AuthMethod != "sso:corp" {
		t.Fatalf("session %+v acting %+v", got, got.Acting)
	}
	// The owner's own user/created is the first.
	if modelstest.AuditCount(t, s, owner.AccountID, "user") != 2 || modelstest.AuditCount(t, s, owner.AccountID, "member") != 1 {
		t.Fatal("want user/created and member/created in the account")
	}
	ev := modelstest.PersonalEvents(t, s, u.ID, 1)
	if len(ev) != 1 || ev[0].ResourceName != "session" || ev[0].Action != "signed_in" ||
		!strings.Contains(string(ev[0].AdditionalDetails), `"method":"sso:corp"`) {
		t.Fatalf("events %+v", ev)
	}
	// The same subject signs in again as the same user, no second join.
	if _, _, err := ssoSignIn(t, s, "new-sub", "new@corp.example"); err != nil {
		t.Fatal(err)
	}
	if modelstest.AuditCount(t, s, owner.AccountID, "member") != 1 {
		t.Fatal("joined twice")
	}
	// Someone from an unlinked domain with no user is refused.
	_, _, err = ssoSignIn(t, s, "x-sub", "x@elsewhere.example")
	wantCode(t, err, models.CodeForbidden)
	// Another provider may not sign in people of the linked domain.
	_, _, err = s.SignInSSO(ctx, models.SSOSignInInput{Provider: "other", Subject: "o", Email: "new@corp.example", EmailVerified: true})
	wantCode(t, err, models.CodeForbidden)
}

// People of a linked domain cannot use a password, to sign in or to
// reset it; others still can.
func TestSSODomainRefusesPasswords(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	owner := linkCorp(t, f, "")
	_, _, err := s.SignIn(ctx, models.SignInInput{Email: owner.Email, Password: "correct horse battery"})
	if !models.IsSSORequired(err) || models.IsBadCredentials(err) {
		t.Fatalf("password sign-in of a linked domain: %v", err)
	}
	wantField(t, err, "email")
	if err := s.RequestPasswordReset(ctx, owner.Email, "192.0.2.1"); !models.IsSSORequired(err) {
		t.Fatalf("reset request: %v", err)
	}
	token, err := s.StartPasswordReset(ctx, models.OperatorActor, owner.Email)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.CompletePasswordReset(ctx, models.PasswordResetInput{Token: token,
		Password: "another long password", PasswordConfirm: "another long password"})
	if !models.IsSSORequired(err) {
		t.Fatalf("reset: %v", err)
	}
	if _, _, err := s.SignIn(ctx, models.SignInInput{Email: "bob@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatalf("bob's password: %v", err)
	}
}

// An existing user's identity is linked on their first sign-in through
// the provider their domain is linked to, only when the provider says the
// email is verified.
func TestSSOLinksExistingUserOnlyWhenVerified(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := f.store
	owner := linkCorp(t, f, "")
	bob, _ := modelstest.Member(t, s, owner, "bob@corp.example", models.RoleMember)
	in := models.SSOSignInInput{Provider: "corp", Subject: "bob-sub", Email: bob.Email}
	_, _, err := s.SignInSSO(ctx, in)
	wantCode(t, err, models.CodeForbidden)
	// A subject OpenID does not allow (over 255 characters) is refused
	// rather than stored cut, where it would match no later sign-in.
	_, _, err = s.SignInSSO(ctx, models.SSOSignInInput{Provider: "corp", Subject: strings.Repeat("s", 256),
		Email: bob.Email, EmailVerified: true})
	wantCode(t, err, models.CodeForbidden)
	in.EmailVerified = true
	_, token, err := s.SignInSSO(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	_, u, err := s.SessionByToken(ctx, token)
	if err != nil || u.Email != bob.Email {
		t.Fatalf("%+v %v", u, err)
	}
	// Once linked, the subject is the user even if the provider's email
	// changes or is not verified any more.
	_, token, err = s.SignInSSO(ctx, models.SSOSignInInput{Provider: "corp", Subject: "bob-sub", Email: "robert@corp.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, u, _ := s.SessionByToken(ctx, token); u.Email != bob.Email {
		t.Fatalf("signed in as %s", u.Email)
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	e, ok := models.AsError(err)
	if !ok || e.Fields[field] == "" {
		t.Fatalf("error %v, want one on %q", err, field)
	}
}
