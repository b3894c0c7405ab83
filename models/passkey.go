package models

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"gorm.io/gorm"
)

// Passkey is a WebAuthn credential a user signs in with, alone or as a
// second factor. Only its public key is stored. SignCount is the
// authenticator's signature counter at the last accepted use: an
// assertion whose counter does not go beyond it is refused as a possible
// clone (verifyAssertion).
type Passkey struct {
	ID     string `gorm:"primaryKey;size:32"`
	UserID string `gorm:"size:32;not null;index"`
	Name   string `gorm:"size:64;not null"`
	// CredentialID is the authenticator's credential id, base64url
	// without padding.
	CredentialID   string     `gorm:"size:1400;not null;uniqueIndex"`
	PublicKey      []byte     `gorm:"not null"` // COSE key
	SignCount      int64      `gorm:"not null"`
	AAGUID         string     `gorm:"column:aaguid;size:32;not null"` // hex; the authenticator's model
	Transports     string     `gorm:"size:128;not null"`              // comma-separated, as the browser said
	BackupEligible bool       `gorm:"not null"`
	BackupState    bool       `gorm:"not null"`
	UserVerified   bool       `gorm:"not null"`
	CreatedAt      time.Time  `gorm:"not null"`
	LastUsedAt     *time.Time // nil until first used to sign in or confirm
}

// credential is the passkey as go-webauthn verifies assertions against it.
func (p *Passkey) credential() webauthn.Credential {
	id, _ := base64.RawURLEncoding.DecodeString(p.CredentialID)
	aaguid, _ := hex.DecodeString(p.AAGUID)
	var transports []protocol.AuthenticatorTransport
	for _, t := range strings.Split(p.Transports, ",") {
		if t != "" {
			transports = append(transports, protocol.AuthenticatorTransport(t))
		}
	}
	return webauthn.Credential{ID: id, PublicKey: p.PublicKey, Transport: transports,
		Flags: webauthn.CredentialFlags{UserPresent: true, UserVerified: p.UserVerified,
			BackupEligible: p.BackupEligible, BackupState: p.BackupState},
		Authenticator: webauthn.Authenticator{AAGUID: aaguid, SignCount: uint32(p.SignCount)}}
}

// AddPasskeyInput names a new passkey and carries the browser's answer
// to the options BeginPasskeyRegistration returned: Token is the
// ceremony's token (kept in a cookie), Credential the
// PublicKeyCredential as JSON.
type AddPasskeyInput struct {
	Name       string
	Token      string
	Credential []byte
}

// Validate checks the name: required, one line, at most 64 characters.
func (in *AddPasskeyInput) Validate() error {
	var f FieldErrors
	in.Name = strings.TrimSpace(in.Name)
	switch n := utf8.RuneCountInString(in.Name); {
	case n == 0:
		f.Add("name", "is required")
	case n > 64:
		f.Add("name", fmt.Sprintf("must be at most 64 characters, got %d", n))
	default:
		checkLine(&f, "name", in.Name)
	}
	return f.Err()
}

// Passkeys lists the actor's own passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, actor Actor) ([]Passkey, error) {
	if actor.UserID == "" {
		return nil, errNoPasskeyUser
	}
	return userPasskeys(s.read(ctx), actor.UserID)
}

// UserHasPasskey reports whether the user has at least one passkey, for
// the sign-in and re-authentication steps that offer one.
func (s *Store) UserHasPasskey(ctx context.Context, userID string) (bool, error) {
	var n int64
	err := s.read(ctx).Model(&Passkey{}).Where("user_id = ?", userID).Limit(1).Count(&n).Error
	return n > 0, err
}

func userPasskeys(db *gorm.DB, userID string) ([]Passkey, error) {
	keys := []Passkey{}
	err := db.Where("user_id = ?", userID).Order("created_at, id").Find(&keys).Error
	return keys, err
}

// AddPasskey verifies the browser's answer to the registration options
// (the ceremony is used up, whatever the outcome) and stores the passkey
// under the actor's user. The authenticator must have verified the user
// (PIN or biometrics): a passkey counts as two factors. Records
// passkey/created. A wrong or expired ceremony or a refused credential
// is CodeForbidden; a credential already registered is
// CodeInvalidParameters on "credential". The user's first passkey, added
// from a dashboard session, ends their other sessions and half-finished
// sign-ins, as turning TOTP on does.
func (s *Store) AddPasskey(ctx context.Context, actor Actor, rp RelyingParty, in AddPasskeyInput) (*Passkey, error) {
	if actor.UserID == "" {
		return nil, errNoPasskeyUser
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	session, err := s.takeCeremony(ctx, in.Token, ceremonyRegister, actor.UserID)
	if err != nil {
		return nil, err
	}
	p, err := s.verifyRegistration(ctx, rp, *session, actor.UserID, in)
	if err != nil {
		return nil, err
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := lockUser(tx, actor.UserID); err != nil {
			return translate(err)
		}
		var had int64
		if err := tx.Model(&Passkey{}).Where("user_id = ?", actor.UserID).Count(&had).Error; err != nil {
			return err
		}
		if had == 0 && actor.SessionID != "" {
			// The first passkey is a second factor: a session opened with
			// the password alone does not outlive it.
			if _, err := endSignIns(tx, actor.UserID, actor.SessionID); err != nil {
				return err
			}
		}
		return s.insertPasskey(tx, actor, p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// verifyRegistration checks the browser's answer to a registration
// ceremony of userID and returns the passkey to store: user verification
// is required, since a passkey counts as two factors.
func (s *Store) verifyRegistration(ctx context.Context, rp RelyingParty, session webauthn.SessionData, userID string, in AddPasskeyInput) (*Passkey, error) {
	wa, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(in.Credential)
	if err != nil {
		return nil, refusedPasskey(err)
	}
	user, err := s.passkeyUser(s.read(ctx), userID)
	if err != nil {
		return nil, err
	}
	cred, err := wa.CreateCredential(user, session, parsed)
	if err != nil {
		return nil, refusedPasskey(err)
	}
	if !cred.Flags.UserVerified {
		return nil, refusedPasskey(errors.New("the authenticator did not verify the user"))
	}
	transports := make([]string, 0, len(cred.Transport))
	for _, t := range cred.Transport {
		transports = append(transports, string(t))
	}
	return &Passkey{ID: NewID(), UserID: userID, Name: in.Name,
		CredentialID: base64.RawURLEncoding.EncodeToString(cred.ID), PublicKey: cred.PublicKey,
		SignCount: int64(cred.Authenticator.SignCount), AAGUID: hex.EncodeToString(cred.Authenticator.AAGUID),
		Transports: truncate(strings.Join(transports, ","), 128), BackupEligible: cred.Flags.BackupEligible,
		BackupState: cred.Flags.BackupState, UserVerified: cred.Flags.UserVerified, CreatedAt: s.Now()}, nil
}

// insertPasskey stores p and records passkey/created, in tx.
func (s *Store) insertPasskey(tx *gorm.DB, actor Actor, p *Passkey) error {
	if err := tx.Create(p).Error; errors.Is(err, gorm.ErrDuplicatedKey) {
		return InvalidField("credential", "this passkey is already registered")
	} else if err != nil {
		return err
	}
	return s.auditPersonal(tx, actor, p.UserID, "passkey", "created", []string{lrn("passkey", p.ID)},
		map[string]any{"name": p.Name, "aaguid": p.AAGUID})
}

// DeletePasskey removes one of the actor's own passkeys and returns it;
// another user's passkey, like an unknown id, is CodeNotFound. Their last
// passkey is refused (CodeForbidden) while a second factor is required
// of them and they have no TOTP: it is their second factor. Their
// half-finished sign-ins end and a MailFactorRemoved notice is queued.
// Records passkey/deleted.
func (s *Store) DeletePasskey(ctx context.Context, actor Actor, id string) (*Passkey, error) {
	if actor.UserID == "" {
		return nil, errNoPasskeyUser
	}
	var p Passkey
	err := s.write(ctx, func(tx *gorm.DB) error {
		if !IsID(id) {
			return NotFound("passkey", id)
		}
		// Locked: two removals at once cannot each leave the other's
		// passkey as the last one.
		if err := lockUser(tx, actor.UserID); err != nil {
			return translate(err)
		}
		err := tx.Where("id = ? AND user_id = ?", id, actor.UserID).Take(&p).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return NotFound("passkey", id)
		} else if err != nil {
			return err
		}
		if err := s.keepRequiredFactor(tx, actor.UserID); err != nil {
			return err
		}
		// A concurrent delete finds no row here, so only one records it.
		if res := tx.Delete(&p); res.Error != nil {
			return res.Error
		} else if res.RowsAffected == 0 {
			return NotFound("passkey", id)
		}
		if err := endPendingSignIns(tx, actor.UserID); err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", actor.UserID).Take(&u).Error; err != nil {
			return translate(err)
		}
		if err := s.factorRemovedMail(tx, &u, RemovedPasskey, p.Name, "you"); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, actor.UserID, "passkey", "deleted", []string{lrn("passkey", p.ID)},
			map[string]any{"name": p.Name})
	})
	if err == nil {
		s.wakeMail()
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

var errNoPasskeyUser = &Error{Code: CodeForbidden, Message: "Passkeys belong to a signed-in user",
	Suggestion: "Sign in to the dashboard to manage passkeys"}

// passkeyUser is a user as go-webauthn sees them: the user handle stored
// in the authenticator is the user's id.
type passkeyUser struct {
	u     *User
	creds []webauthn.Credential
}

func (p passkeyUser) WebAuthnID() []byte                         { return []byte(p.u.ID) }
func (p passkeyUser) WebAuthnName() string                       { return p.u.Email }
func (p passkeyUser) WebAuthnDisplayName() string                { return p.u.Email }
func (p passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

func (s *Store) passkeyUser(db *gorm.DB, userID string) (passkeyUser, error) {
	var u User
	if err := db.Where("id = ?", userID).Take(&u).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return passkeyUser{}, errPasskeyRefused
	} else if err != nil {
		return passkeyUser{}, err
	}
	keys, err := userPasskeys(db, userID)
	if err != nil {
		return passkeyUser{}, err
	}
	pu := passkeyUser{u: &u}
	for i := range keys {
		pu.creds = append(pu.creds, keys[i].credential())
	}
	return pu, nil
}

// keepRequiredFactor refuses, in tx, removing one of userID's passkeys
// when it is their last second factor and one is required of them.
func (s *Store) keepRequiredFactor(tx *gorm.DB, userID string) error {
	var n int64
	if err := tx.Model(&Passkey{}).Where("user_id = ?", userID).Count(&n).Error; err != nil || n > 1 {
		return err
	}
	f, err := secondFactorsOf(tx, userID)
	if err != nil || f.TOTP {
		return err
	}
	var u User
	if err := tx.Where("id = ?", userID).Take(&u).Error; err != nil {
		return translate(err)
	}
	if must, err := s.mustHaveSecondFactor(tx, &u); err != nil || !must {
		return err
	}
	return errLastRequiredPasskey
}

var errLastRequiredPasskey = &Error{Code: CodeForbidden,
	Message:    "This is your last passkey and a second factor is required of you, so it cannot be removed",
	Suggestion: "Add another passkey or set up two-factor authentication first"}
