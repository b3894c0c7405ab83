package models

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// SSOIdentity ties a person at an OpenID provider (the provider's id in
// the operator's configuration and the ID token's "sub") to a user. Email
// is the address the provider vouched for when the identity was linked.
type SSOIdentity struct {
	Provider  string    `gorm:"primaryKey;size:64;not null"`
	Subject   string    `gorm:"primaryKey;size:255;not null"`
	UserID    string    `gorm:"size:32;not null;index:idx_sso_identities_user"`
	Email     string    `gorm:"size:254;not null"`
	CreatedAt time.Time `gorm:"not null;autoCreateTime:false"`
}

// SSOSignInInput is what a provider's verified ID token says about the
// person signing in: the caller (handlers/web) has checked the token's
// signature, issuer, audience, expiry and nonce. EmailVerified is the
// token's email_verified claim; a provider that omits it has not verified
// the address, as far as cloudplane is concerned. ProviderName is the
// provider's name for messages (Provider when empty). ReplacesToken,
// SourceIP, UserAgent and Next are as for SignIn; Device is recognised
// for the login SSOLoginEmail names.
type SSOSignInInput struct {
	Provider      string
	ProviderName  string
	Subject       string
	Email         string
	EmailVerified bool
	ReplacesToken string
	SourceIP      string
	UserAgent     string
	Device        Device
	Next          string
}

// ssoRefused is a refusal of a sign-in through single sign-on, shown on
// the callback's error page.
func ssoRefused(msg, suggestion string) *Error {
	return &Error{Code: CodeForbidden, Message: msg, Suggestion: suggestion}
}

// SignInSSO signs in the person a provider vouched for and starts a
// session whose method is MethodSSOPrefix+provider (session/signed_in
// records it). The person is, in this order:
//   - the user their identity (provider, subject) was linked to (by an
//     earlier sign-in, or connected from their account page:
//     ConnectSSOIdentity);
//   - else, with a verified email in a domain linked to this provider
//     (LinkSSODomain), the user with that email, unless support staff,
//     whose identity is linked now (user/updated, personal);
//   - else, likewise, a new user who joins the domain's account just in
//     time with its default role: no password, no account of their own
//     (user/created and member/created in that account).
//
// Any other provider is not trusted to say who owns an address: an
// existing user outside a domain linked to it is refused, and told to
// sign in with their password and connect the provider.
//
// The sign-in counts as both factors only when the token's verified email
// is in a domain linked to this provider and that domain is the user's
// own (the provider's policy rules then), checked at every sign-in;
// otherwise it is one factor (SessionOrigin.SingleFactor): a user with a
// second factor, or who must enrol one, gets SecondStepNeeded as for a
// password. An identity connected with another address (a personal
// mailbox) is never more than one factor.
//
// A user whose email's domain is linked to another provider must use that
// one. A subject longer than OpenID's 255 characters is refused. Every
// refusal is CodeForbidden; nothing is written then.
func (s *Store) SignInSSO(ctx context.Context, in SSOSignInInput) (*Session, string, error) {
	email := normalizeEmail(in.Email)
	var f FieldErrors
	if in.Provider == "" || in.Subject == "" || len(in.Subject) > 255 || textProblem(in.Subject, false) != "" {
		return nil, "", ssoRefused("The identity provider did not give a usable subject (sub)",
			"Tell your administrator: cloudplane needs a subject of at most 255 characters")
	}
	if validateEmail(&f, "email", email); f.Err() != nil {
		return nil, "", ssoRefused("The identity provider did not give a usable email address",
			"Ask your administrator to release the email scope to cloudplane")
	}
	trusted, err := s.ssoTrustedFor(s.read(ctx), in, email)
	if err != nil {
		return nil, "", err
	}
	login, err := ssoLoginEmail(s.read(ctx), in.Provider, in.Subject, email)
	if err != nil {
		return nil, "", err
	}
	origin := SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodSSOPrefix + in.Provider,
		NewBrowser: !in.Device.knows(login), SingleFactor: !trusted, Next: in.Next}
	var keys string
	sess, token, err := s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		u, joined, err := s.ssoUser(tx, in, email)
		if err != nil {
			return nil, err
		}
		// Counted as two factors outside the transaction: the link must
		// still hold (a domain unlinked since is a one-factor sign-in).
		if trusted {
			if ok, err := ssoFullSignIn(tx, u.Email, in, email); err != nil {
				return nil, err
			} else if !ok {
				return nil, ssoRefused("The single sign-on of "+u.Email+" changed while signing in", "Sign in again")
			}
		}
		if joined != "" {
			keys = joined
		}
		if in.ReplacesToken != "" {
			if err := tx.Where("token_hash = ?", hashSecret(in.ReplacesToken)).Delete(&Session{}).Error; err != nil {
				return nil, err
			}
		}
		return u, nil
	})
	if err != nil {
		return nil, "", err
	}
	if keys != "" {
		s.keys.forgetAccount(keys)
	}
	return sess, token, nil
}

// SSOLoginEmail is the email of the user the identity (provider,
// subject) is linked to, else tokenEmail: the login a browser's device
// cookie is checked against before SignInSSO (RecognizeDevice).
func (s *Store) SSOLoginEmail(ctx context.Context, provider, subject, tokenEmail string) (string, error) {
	return ssoLoginEmail(s.read(ctx), provider, subject, tokenEmail)
}

func ssoLoginEmail(db *gorm.DB, provider, subject, tokenEmail string) (string, error) {
	var emails []string
	err := db.Model(&User{}).Where("id IN (?)", db.Model(&SSOIdentity{}).Select("user_id").
		Where("provider = ? AND subject = ?", provider, subject)).Limit(1).Pluck("email", &emails).Error
	if err != nil || len(emails) == 0 {
		return tokenEmail, err
	}
	return emails[0], nil
}

// ssoUser finds, links or creates the user SignInSSO signs in, in tx. It
// returns the account a new user joined, if any.
func (s *Store) ssoUser(tx *gorm.DB, in SSOSignInInput, email string) (*User, string, error) {
	var id SSOIdentity
	err := tx.Where("provider = ? AND subject = ?", in.Provider, in.Subject).Take(&id).Error
	if err == nil {
		var u User
		if err := tx.Where("id = ?", id.UserID).Take(&u).Error; err != nil {
			return nil, "", err
		}
		if u.Status != UserActive {
			return nil, "", ssoRefused("This user is deactivated", "Ask the operator to reactivate it")
		}
		return &u, "", s.ssoDomainAllows(tx, u.Email, in.Provider)
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, "", err
	}
	if !in.EmailVerified {
		return nil, "", ssoRefused("The identity provider has not verified "+email,
			"Verify the address at your identity provider, or ask your administrator to send email_verified")
	}
	if err := s.ssoDomainAllows(tx, email, in.Provider); err != nil {
		return nil, "", err
	}
	u, err := userByEmail(tx, email)
	joined := ""
	switch {
	case ErrorCode(err) == CodeNotFound:
		if u, joined, err = s.joinJustInTime(tx, email, in.Provider); err != nil {
			return nil, "", err
		}
	case err != nil:
		return nil, "", err
	case u.Status != UserActive:
		return nil, "", ssoRefused("This user is deactivated", "Ask the operator to reactivate it")
	default:
		if err := s.ssoMayLinkExisting(tx, u, in); err != nil {
			return nil, "", err
		}
	}
	id = SSOIdentity{Provider: in.Provider, Subject: in.Subject, UserID: u.ID, Email: email, CreatedAt: s.Now()}
	if err := tx.Create(&id).Error; err != nil {
		return nil, "", err
	}
	if joined == "" {
		err = s.auditPersonal(tx, u.Actor(), u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"sso_identity": "linked", "provider": in.Provider})
	}
	return u, joined, err
}

// ssoMayLinkExisting allows linking an identity of provider to the
// existing user u by their email alone only when u's domain is linked to
// that provider, and never for support staff: any other provider's
// administrator could mint that address and take the user over.
func (s *Store) ssoMayLinkExisting(tx *gorm.DB, u *User, in SSOSignInInput) error {
	ok, err := ssoDomainTrusts(tx, u.Email, in.Provider)
	if err != nil || ok && u.Role != RoleSupport {
		return err
	}
	name := in.ProviderName
	if name == "" {
		name = in.Provider
	}
	return ssoRefused(name+" is not connected to the cloudplane user "+u.Email,
		"Sign in with your password, then connect "+name+" from your account page")
}

// ssoDomainTrusts reports whether email's domain is linked to provider.
func ssoDomainTrusts(db *gorm.DB, email, provider string) (bool, error) {
	d, err := ssoDomainOf(db, email)
	return err == nil && d != nil && d.Provider == provider, err
}

// ssoTrustedFor guesses, before SignInSSO's transaction, whether the
// sign-in will count as two factors (ssoFullSignIn): for the user of the
// identity, else the one the token's email names.
func (s *Store) ssoTrustedFor(db *gorm.DB, in SSOSignInInput, email string) (bool, error) {
	userEmail := email
	var id SSOIdentity
	err := db.Where("provider = ? AND subject = ?", in.Provider, in.Subject).Take(&id).Error
	if err == nil {
		var u User
		if err := db.Select("email").Where("id = ?", id.UserID).Take(&u).Error; err != nil {
			return false, translate(err)
		}
		userEmail = u.Email
	} else if !errors.Is(err, gorm.ErrRecordNotFound) {
		return false, err
	}
	return ssoFullSignIn(db, userEmail, in, email)
}

// ssoFullSignIn reports whether a sign-in through in.Provider of the user
// with userEmail counts as two factors: the token's email (tokenEmail)
// is verified, in a domain linked to that provider, and in the user's own
// domain. Whatever address an identity was connected with, only what the
// token says now counts.
func ssoFullSignIn(db *gorm.DB, userEmail string, in SSOSignInInput, tokenEmail string) (bool, error) {
	if !in.EmailVerified || emailDomain(userEmail) != emailDomain(tokenEmail) || emailDomain(tokenEmail) == "" {
		return false, nil
	}
	return ssoDomainTrusts(db, tokenEmail, in.Provider)
}

// emailDomain is the normalised domain of email, "" when it has none.
func emailDomain(email string) string {
	_, domain, _ := strings.Cut(normalizeEmail(email), "@")
	return domain
}

// ssoDomainAllows refuses a sign-in through provider for an email whose
// domain is linked to another provider.
func (s *Store) ssoDomainAllows(tx *gorm.DB, email, provider string) error {
	d, err := ssoDomainOf(tx, email)
	if err != nil || d == nil || d.Provider == provider {
		return err
	}
	return ssoRefused("Accounts at "+d.Domain+" sign in through another identity provider",
		"Go back to the sign-in page and choose the single sign-on of your organization")
}

// joinJustInTime creates the user for email, whose domain must be linked
// to provider, with no usable password, and makes them a member of the
// domain's account with its default role.
func (s *Store) joinJustInTime(tx *gorm.DB, email, provider string) (*User, string, error) {
	d, err := ssoDomainOf(tx, email)
	if err != nil {
		return nil, "", err
	}
	if d == nil || d.Provider != provider {
		return nil, "", ssoRefused("No cloudplane user has the email "+email,
			"Ask an owner of your organization's account to invite you, or to link your email domain to single sign-on")
	}
	if _, err := lockAccount(tx, d.AccountID); err != nil {
		return nil, "", err
	}
	now := s.Now()
	// An empty hash matches no password: this user signs in only through
	// single sign-on (or a reset link, if their domain is ever unlinked).
	u := &User{ID: NewID(), Email: email, Role: RoleOwner, Status: UserActive, CreatedAt: now, UpdatedAt: now}
	joiner := Actor{UserID: u.ID, Email: email, Role: d.DefaultRole, AccountID: d.AccountID}
	if err := tx.Create(u).Error; err != nil {
		return nil, "", err
	}
	if err := s.audit(tx, joiner, d.AccountID, "user", "created", []string{lrn("user", u.ID)},
		map[string]any{"email": email, "role": u.Role, "sso": provider}); err != nil {
		return nil, "", err
	}
	if _, err := s.addMember(tx, joiner, d.AccountID, u.ID, d.DefaultRole); err != nil {
		return nil, "", err
	}
	return u, d.AccountID, nil
}

// ssoDomainOf returns the linked domain of email, or nil.
func ssoDomainOf(db *gorm.DB, email string) (*SSODomain, error) {
	_, domain, ok := strings.Cut(normalizeEmail(email), "@")
	if !ok || textProblem(domain, false) != "" {
		return nil, nil
	}
	var d SSODomain
	err := db.Where("domain = ?", domain).Take(&d).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	return &d, err
}

const ssoRequiredSuggestion = "Use the single sign-on button on the sign-in page"

// errSSORequired refuses a password (sign-in or reset) for an address in
// a domain linked to single sign-on, beside the email field.
func errSSORequired(d *SSODomain) *Error {
	msg := "belongs to " + d.Domain + ", which signs in with single sign-on: use the single sign-on button"
	return &Error{Code: CodeForbidden, Message: "Accounts at " + d.Domain + " sign in with single sign-on",
		Suggestion: ssoRequiredSuggestion, Fields: map[string]string{"email": msg}}
}

// IsSSORequired reports whether err refuses a password because the
// email's domain signs in with single sign-on.
func IsSSORequired(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == CodeForbidden && e.Suggestion == ssoRequiredSuggestion
}

// refuseSSODomain returns errSSORequired when email's domain is linked.
func refuseSSODomain(db *gorm.DB, email string) error {
	d, err := ssoDomainOf(db, email)
	if err != nil || d == nil {
		return err
	}
	return errSSORequired(d)
}
