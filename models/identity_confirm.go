package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// SSOPurposeReauth marks a single sign-on begun by BeginSSOReauth: a
// signed-in user confirming who they are, not a sign-in.
const SSOPurposeReauth = "reauth"

// SSOReauthMaxAge is how long before the provider's answer its sign-in
// (the ID token's auth_time) may have happened for it to count as a
// confirmation: the request asks the provider to sign the person in again
// (prompt=login, max_age=0), and a provider that answers from an older
// sign-in is refused.
const SSOReauthMaxAge = 5 * time.Minute

// ReauthMethods are the ways a user may prove again who they are: each is
// true only when the user has it. Password is false for a user who joined
// just in time through single sign-on (they have none).
type ReauthMethods struct {
	Password     bool
	SecondFactor bool     // a confirmed TOTP authenticator, or its recovery codes
	Passkey      bool     // at least one passkey
	SSOProviders []string // providers of the user's linked identities, by id
}

// ReauthMethods returns the ways the acting user may confirm who they are.
func (s *Store) ReauthMethods(ctx context.Context, actor Actor) (*ReauthMethods, error) {
	db := s.read(ctx)
	u, err := s.User(ctx, actor.UserID)
	if err != nil {
		return nil, err
	}
	m := &ReauthMethods{Password: u.PasswordHash != ""}
	f, err := secondFactorOf(db, u.ID)
	if err != nil {
		return nil, err
	}
	m.SecondFactor = f != nil && f.Confirmed
	if m.Passkey, err = s.UserHasPasskey(ctx, u.ID); err != nil {
		return nil, err
	}
	err = db.Model(&SSOIdentity{}).Where("user_id = ?", u.ID).Distinct().Order("provider").
		Pluck("provider", &m.SSOProviders).Error
	return m, err
}

// HasPassword reports whether the user can sign in with a password: a
// user who joined just in time through single sign-on has none.
func (u *User) HasPassword() bool { return u.PasswordHash != "" }

func reauthActor(actor Actor) error {
	if actor.UserID == "" || actor.SessionID == "" {
		return Errorf(CodeForbidden, "Only a dashboard session confirms its user's identity")
	}
	return nil
}

// ConfirmIdentityWithCode is ConfirmIdentity with a code of the user's
// second factor: a TOTP code or an unused recovery code, used up as at
// sign-in. The method recorded is FactorTOTP or FactorRecovery. A wrong,
// replayed or used code fails with IsBadSecondFactorCode (nothing is
// written); the caller throttles attempts.
func (s *Store) ConfirmIdentityWithCode(ctx context.Context, actor Actor, code string) error {
	if err := reauthActor(actor); err != nil {
		return err
	}
	if code == "" {
		return InvalidField("code", "is required")
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		kind, err := s.checkSecondFactor(tx, actor, actor.UserID, code)
		if err != nil {
			return err
		}
		return s.identityConfirmed(tx, actor, kind)
	})
}

// ConfirmIdentityWithPasskey is ConfirmIdentity with a passkey: the
// browser's answer to BeginPasskeyCheck's options for the acting user
// (token is that ceremony's). A passkey of another user, a ceremony begun
// for another user or purpose, and a copied passkey are refused as
// FinishPasskeyCheck refuses them. Records the passkey's use and
// session/reauthenticated (method passkey) together.
func (s *Store) ConfirmIdentityWithPasskey(ctx context.Context, actor Actor, rp RelyingParty, token string, credential []byte) error {
	if err := reauthActor(actor); err != nil {
		return err
	}
	session, err := s.takeCeremony(ctx, token, ceremonyCheck, actor.UserID)
	if err != nil {
		return err
	}
	used, err := s.verifyAssertion(ctx, rp, *session, credential, actor.UserID)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		if err := s.recordPasskeyUse(tx, used); err != nil {
			return err
		}
		return s.identityConfirmed(tx, actor, MethodPasskey)
	})
}

// BeginSSOReauth stores a single sign-on through provider by which the
// acting user confirms who they are in their current session, returning
// to next; the provider's
// answer goes to ConfirmIdentityWithSSO. Nothing is audited yet.
func (s *Store) BeginSSOReauth(ctx context.Context, actor Actor, provider, next string) (*SSOStart, error) {
	if err := reauthActor(actor); err != nil {
		return nil, err
	}
	return s.beginSSO(ctx, SSOLogin{Provider: truncate(provider, 64), Next: truncate(next, 2048),
		Purpose: SSOPurposeReauth, UserID: actor.UserID, SessionID: actor.SessionID})
}

// SSOReauth is what a provider's verified ID token says in answer to
// BeginSSOReauth: the caller (handlers/web) checked its signature, issuer,
// audience, expiry and nonce. AuthTime is its auth_time claim (zero when
// absent, which is refused: the request sent max_age, and OpenID Connect
// then requires auth_time).
type SSOReauth struct {
	Login    *SSOLogin // from TakeSSOLogin
	Subject  string
	AuthTime time.Time
}

var errSSONotYours = &Error{Code: CodeForbidden,
	Message:    "The identity you signed in with at your provider is not the one linked to this cloudplane user",
	Suggestion: "Sign in at your provider as yourself, or confirm it's you another way"}

// ConfirmIdentityWithSSO is ConfirmIdentity through single sign-on: the
// login must be a re-authentication begun by the acting user in the same
// session, and the provider's (provider, subject) an identity linked to
// that same user; the provider must say when the person signed in
// (auth_time), within SSOReauthMaxAge. Records session/reauthenticated with method
// MethodSSOPrefix+provider. Every refusal is CodeForbidden.
func (s *Store) ConfirmIdentityWithSSO(ctx context.Context, actor Actor, in SSOReauth) error {
	if err := reauthActor(actor); err != nil {
		return err
	}
	l := in.Login
	if l == nil || l.Purpose != SSOPurposeReauth || l.UserID != actor.UserID || l.SessionID != actor.SessionID {
		return errSSOLoginInvalid
	}
	if in.AuthTime.IsZero() || s.Now().Sub(in.AuthTime) > SSOReauthMaxAge {
		return &Error{Code: CodeForbidden, Message: "Your provider did not ask you to sign in again",
			Suggestion: "Try again; if it goes on, confirm it's you another way"}
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		var id SSOIdentity
		err := tx.Where("provider = ? AND subject = ?", l.Provider, in.Subject).Take(&id).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errSSONotYours
		} else if err != nil {
			return err
		}
		if id.UserID != actor.UserID {
			return errSSONotYours
		}
		return s.identityConfirmed(tx, actor, MethodSSOPrefix+l.Provider)
	})
}
