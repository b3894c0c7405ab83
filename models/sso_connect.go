package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// SSOConnect marks the single sign-on under way whose SSOLogin has the
// same StateHash as started by a signed-in user to connect an identity
// of the provider to themselves (the "connect" purpose): its callback
// links the provider's subject to UserID, and only from SessionID.
type SSOConnect struct {
	StateHash string    `gorm:"primaryKey;size:64"`
	UserID    string    `gorm:"size:32;not null"`
	SessionID string    `gorm:"size:32;not null"`
	ExpiresAt time.Time `gorm:"not null;index"`
}

// SSOIdentityInput is what a provider's verified ID token says about the
// person connecting: as SSOSignInInput, which the caller has checked.
type SSOIdentityInput struct {
	Provider      string
	Subject       string
	Email         string
	EmailVerified bool
}

// BeginSSOConnect starts a single sign-on through provider (an id the
// caller has configured) that connects the provider's identity to the
// signed-in actor, returning to next, and returns its secrets as
// BeginSSOLogin does. The actor must have authenticated recently
// (ErrReauthRequired). Nothing is audited yet.
func (s *Store) BeginSSOConnect(ctx context.Context, actor Actor, provider, next string) (*SSOStart, error) {
	if actor.UserID == "" || actor.Operator {
		return nil, Errorf(CodeForbidden, "Only a signed-in user can connect a single sign-on")
	}
	start := &SSOStart{State: randomHex(24), Nonce: randomHex(24), BrowserToken: randomHex(32), Verifier: randomHex(32)}
	now := s.Now()
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := s.requireRecentAuth(tx, actor); err != nil {
			return err
		}
		if err := tx.Where("expires_at < ?", now).Delete(&SSOConnect{}).Error; err != nil {
			return err
		}
		if err := tx.Where("expires_at < ?", now).Delete(&SSOLogin{}).Error; err != nil {
			return err
		}
		login := &SSOLogin{StateHash: hashSecret(start.State), BrowserHash: hashSecret(start.BrowserToken),
			Provider: truncate(provider, 64), Nonce: start.Nonce, Verifier: start.Verifier, Next: truncate(next, 2048),
			ExpiresAt: now.Add(SSOLoginTTL)}
		if err := tx.Create(login).Error; err != nil {
			return err
		}
		return tx.Create(&SSOConnect{StateHash: login.StateHash, UserID: actor.UserID, SessionID: actor.SessionID,
			ExpiresAt: login.ExpiresAt}).Error
	})
	if err != nil {
		return nil, err
	}
	return start, nil
}

// TakeSSOConnect returns, and consumes, the connect purpose of a sign-in
// under way that TakeSSOLogin returned, or nil when it was begun to sign
// in.
func (s *Store) TakeSSOConnect(ctx context.Context, login *SSOLogin) (*SSOConnect, error) {
	var c SSOConnect
	found := false
	err := s.write(ctx, func(tx *gorm.DB) error {
		err := tx.Where("state_hash = ?", login.StateHash).Take(&c).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		found = true
		return tx.Where("state_hash = ?", c.StateHash).Delete(&SSOConnect{}).Error
	})
	if err != nil || !found {
		return nil, err
	}
	return &c, nil
}

// ConnectSSOIdentity makes the provider's subject an identity of the
// actor, who must be the user, in the session, that began the connect
// (else CodeForbidden). When the user's email domain is linked to single
// sign-on, the identity's verified email must be in that domain (else
// CodeForbidden): a personal mailbox's identity is not the organization's
// to vouch for. A subject already the actor's is left as it is;
// one that belongs to another user is CodeConflict. The email is kept
// only when the provider verified it: it is what LinkSSODomain takes as
// the provider vouching for a domain. Records user/updated (personal)
// with sso_identity "connected" and the provider.
func (s *Store) ConnectSSOIdentity(ctx context.Context, actor Actor, c *SSOConnect, in SSOIdentityInput) error {
	if c == nil || actor.UserID == "" || actor.UserID != c.UserID || actor.SessionID != c.SessionID || !s.Now().Before(c.ExpiresAt) {
		return ssoRefused("This connection was started by another session, or has expired",
			"Go to your account page and choose Connect again")
	}
	if in.Provider == "" || in.Subject == "" || len(in.Subject) > 255 || textProblem(in.Subject, false) != "" {
		return ssoRefused("The identity provider did not give a usable subject (sub)",
			"Tell your administrator: cloudplane needs a subject of at most 255 characters")
	}
	email := ""
	if in.EmailVerified {
		var f FieldErrors
		if validateEmail(&f, "email", normalizeEmail(in.Email)); f.Err() == nil {
			email = normalizeEmail(in.Email)
		}
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		if err := lockUser(tx, actor.UserID); err != nil {
			return err
		}
		if err := ssoConnectInOwnDomain(tx, actor.UserID, email); err != nil {
			return err
		}
		var id SSOIdentity
		err := tx.Where("provider = ? AND subject = ?", in.Provider, in.Subject).Take(&id).Error
		if err == nil {
			if id.UserID == actor.UserID {
				return nil
			}
			return &Error{Code: CodeConflict, Message: "This identity of the provider is connected to another cloudplane user",
				Suggestion: "Sign in to the provider as yourself, or ask that user to disconnect it"}
		} else if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		id = SSOIdentity{Provider: in.Provider, Subject: in.Subject, UserID: actor.UserID, Email: email, CreatedAt: s.Now()}
		if err := tx.Create(&id).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return Errorf(CodeConflict, "This identity of the provider is connected to another cloudplane user")
			}
			return err
		}
		return s.auditPersonal(tx, actor, actor.UserID, "user", "updated", []string{lrn("user", actor.UserID)},
			map[string]any{"sso_identity": "connected", "provider": in.Provider})
	})
}

// ssoConnectInOwnDomain refuses connecting to the user userID an identity
// whose verified email (email, "" when not verified) is outside the
// user's own domain, when that domain is linked to single sign-on.
func ssoConnectInOwnDomain(tx *gorm.DB, userID, email string) error {
	var u User
	if err := tx.Select("email").Where("id = ?", userID).Take(&u).Error; err != nil {
		return translate(err)
	}
	d, err := ssoDomainOf(tx, u.Email)
	if err != nil || d == nil || emailDomain(email) == d.Domain {
		return err
	}
	return ssoRefused("Only an identity with a verified address at "+d.Domain+" can be connected to "+u.Email,
		"Sign in at your provider with your "+d.Domain+" account, then connect it again")
}

// SSOIdentities lists the signed-in actor's identities at providers,
// oldest first.
func (s *Store) SSOIdentities(ctx context.Context, actor Actor) ([]SSOIdentity, error) {
	if actor.UserID == "" {
		return nil, nil
	}
	var out []SSOIdentity
	err := s.read(ctx).Where("user_id = ?", actor.UserID).Order("created_at, provider, subject").Find(&out).Error
	return out, err
}

// DisconnectSSOIdentity removes an identity of the actor's: it signs
// them in no more. It needs a recent authentication (ErrReauthRequired).
// The last way to sign in of a user without a password (no other
// identity, no passkey) is refused (CodeConflict). Another user's
// identity is CodeNotFound. Records user/updated (personal) with
// sso_identity "disconnected".
func (s *Store) DisconnectSSOIdentity(ctx context.Context, actor Actor, provider, subject string) error {
	if actor.UserID == "" {
		return NotFound("SSO identity", provider)
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		if err := s.requireRecentAuth(tx, actor); err != nil {
			return err
		}
		if err := lockUser(tx, actor.UserID); err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", actor.UserID).Take(&u).Error; err != nil {
			return translate(err)
		}
		res := tx.Where("provider = ? AND subject = ? AND user_id = ?", provider, subject, u.ID).Delete(&SSOIdentity{})
		if res.Error != nil {
			return res.Error
		} else if res.RowsAffected != 1 {
			return NotFound("SSO identity", provider)
		}
		if u.PasswordHash == "" {
			var others, passkeys int64
			if err := tx.Model(&SSOIdentity{}).Where("user_id = ?", u.ID).Count(&others).Error; err != nil {
				return err
			}
			if err := tx.Model(&Passkey{}).Where("user_id = ?", u.ID).Count(&passkeys).Error; err != nil {
				return err
			}
			if others+passkeys == 0 {
				return &Error{Code: CodeConflict, Message: "This is your only way to sign in: you have no password",
					Suggestion: "Set a password (Forgot your password?) or add a passkey first"}
			}
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"sso_identity": "disconnected", "provider": provider})
	})
}
