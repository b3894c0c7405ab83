package models

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"gorm.io/gorm"
)

// MethodPasskey is a sign-in with a passkey alone (the authenticator
// verified the user: two factors), as Session.AuthMethod records it.
const MethodPasskey = "passkey"

// PasskeyCeremonyTTL is how long the options of a passkey ceremony may
// be answered.
const PasskeyCeremonyTTL = 5 * time.Minute

// RelyingParty is who passkeys are made for: ID is the host of the
// dashboard's public URL (WebAuthn's RP ID: browsers refuse an IP
// address), Origin its scheme://host[:port], the one origin assertions
// may come from.
type RelyingParty struct {
	ID     string
	Origin string
}

// NewRelyingParty derives the relying party from the dashboard's public
// URL (--base-url).
func NewRelyingParty(baseURL string) (RelyingParty, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return RelyingParty{}, fmt.Errorf("base URL %q: want http(s)://host[:port]", baseURL)
	}
	return RelyingParty{ID: strings.ToLower(u.Hostname()), Origin: u.Scheme + "://" + strings.ToLower(u.Host)}, nil
}

func (rp RelyingParty) webAuthn() (*webauthn.WebAuthn, error) {
	return webauthn.New(&webauthn.Config{RPID: rp.ID, RPDisplayName: "cloudplane", RPOrigins: []string{rp.Origin}})
}

// PasskeyCeremony holds a WebAuthn challenge between the options the
// browser is given and its answer, found by the SHA-256 of a token the
// browser keeps in a cookie. It is deleted when answered, right or
// wrong, so a challenge is answered once.
type PasskeyCeremony struct {
	ID          string    `gorm:"primaryKey;size:64"`
	Purpose     string    `gorm:"size:16;not null"` // a ceremony* value
	UserID      *string   `gorm:"size:32"`          // nil for a discoverable sign-in
	SessionData string    `gorm:"not null"`         // webauthn.SessionData as JSON
	ExpiresAt   time.Time `gorm:"not null;index"`
}

const (
	ceremonyRegister = "register"
	ceremonySignIn   = "sign_in"
	ceremonyCheck    = "check"
)

var (
	errPasskeyRefused = &Error{Code: CodeForbidden, Message: "The passkey was not accepted",
		Suggestion: "Try again with a passkey registered here, or sign in with your password"}
	errPasskeyCeremony = &Error{Code: CodeForbidden, Message: "The passkey request expired or was already used",
		Suggestion: "Start again"}
	errPasskeyCloned = &Error{Code: CodeForbidden,
		Message:    "The passkey was refused: its signature counter went back, so it may have been copied",
		Suggestion: "Use another passkey or your password, then remove this passkey and add it again"}
)

// IsPasskeyCloned reports whether err refused a passkey whose signature
// counter did not advance, a sign of a copied credential.
func IsPasskeyCloned(err error) bool { return errors.Is(err, errPasskeyCloned) }

func refusedPasskey(cause error) error {
	e := *errPasskeyRefused
	e.cause = cause
	return &e
}

// BeginPasskeyRegistration returns the options (JSON, {"publicKey":
// ...}) for navigator.credentials.create and the token of the ceremony
// AddPasskey finishes: a discoverable credential with user verification,
// excluding the actor's passkeys.
func (s *Store) BeginPasskeyRegistration(ctx context.Context, actor Actor, rp RelyingParty) ([]byte, string, error) {
	if actor.UserID == "" {
		return nil, "", errNoPasskeyUser
	}
	options, session, err := s.registrationOptions(ctx, rp, actor.UserID)
	if err != nil {
		return nil, "", err
	}
	return s.beginCeremony(ctx, ceremonyRegister, &actor.UserID, options, session)
}

// registrationOptions makes the challenge of a new passkey for userID: a
// discoverable credential with user verification, not one of theirs.
func (s *Store) registrationOptions(ctx context.Context, rp RelyingParty, userID string) (*protocol.CredentialCreation, *webauthn.SessionData, error) {
	wa, err := rp.webAuthn()
	if err != nil {
		return nil, nil, err
	}
	user, err := s.passkeyUser(s.read(ctx), userID)
	if err != nil {
		return nil, nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(user.creds))
	for _, c := range user.creds {
		exclude = append(exclude, c.Descriptor())
	}
	required := true
	return wa.BeginRegistration(user, webauthn.WithExclusions(exclude),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{RequireResidentKey: &required,
			ResidentKey: protocol.ResidentKeyRequirementRequired, UserVerification: protocol.VerificationRequired}))
}

// BeginPasskeySignIn returns the options for navigator.credentials.get
// for a sign-in with a passkey alone (any discoverable credential, user
// verification required) and the token PasskeySignIn takes.
func (s *Store) BeginPasskeySignIn(ctx context.Context, rp RelyingParty) ([]byte, string, error) {
	wa, err := rp.webAuthn()
	if err != nil {
		return nil, "", err
	}
	options, session, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, "", err
	}
	return s.beginCeremony(ctx, ceremonySignIn, nil, options, session)
}

// PasskeySignInInput is the browser's answer to BeginPasskeySignIn's
// options, and where the new session comes from (see SignInInput).
type PasskeySignInInput struct {
	Token         string
	Credential    []byte
	ReplacesToken string
	SourceIP      string
	UserAgent     string
	// DeviceCookie is the browser's device cookie as sent, checked
	// (RecognizeDevice) once the passkey names the user: without one for
	// that login the browser is new and the user is mailed.
	DeviceCookie string
}

// PasskeySignIn verifies a discoverable assertion and starts a session
// with Method MethodPasskey (session/signed_in records it); from a
// browser without the user's device cookie it queues the new sign-in
// mail (newBrowserMail). An unknown
// credential, a deactivated user, a bad signature, or an expired or
// already answered ceremony is CodeForbidden; a signature counter that
// does not advance is refused too (IsPasskeyCloned) and recorded as
// passkey/clone_suspected. A user whose email domain is linked to single
// sign-on is refused (IsSSORequired): offboarding at the provider must
// cut their access.
func (s *Store) PasskeySignIn(ctx context.Context, rp RelyingParty, in PasskeySignInInput) (*Session, string, error) {
	session, err := s.takeCeremony(ctx, in.Token, ceremonySignIn, "")
	if err != nil {
		return nil, "", err
	}
	used, err := s.verifyAssertion(ctx, rp, *session, in.Credential, "")
	if err != nil {
		return nil, "", err
	}
	device, err := s.RecognizeDevice(ctx, in.DeviceCookie, used.user.Email)
	if err != nil {
		return nil, "", err
	}
	origin := SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodPasskey,
		NewBrowser: !device.knows(used.user.Email)}
	return s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		if err := s.recordPasskeyUse(tx, used); err != nil {
			return nil, err
		}
		// A domain that signs in through its provider is cut off there.
		if err := refuseSSODomain(tx, used.user.Email); err != nil {
			return nil, err
		}
		if in.ReplacesToken != "" {
			if err := tx.Where("token_hash = ?", hashSecret(in.ReplacesToken)).Delete(&Session{}).Error; err != nil {
				return nil, err
			}
		}
		return used.user, nil
	})
}

// BeginPasskeyCheck returns the options for navigator.credentials.get
// that ask a known user for one of their passkeys (allowCredentials:
// theirs; user verification required), and the token
// FinishPasskeyCheck takes: for a second step of sign-in or a
// re-authentication. A user without a passkey is CodeNotFound.
func (s *Store) BeginPasskeyCheck(ctx context.Context, rp RelyingParty, userID string) ([]byte, string, error) {
	options, session, err := s.passkeyCheckOptions(ctx, rp, userID)
	if err != nil {
		return nil, "", err
	}
	return s.beginCeremony(ctx, ceremonyCheck, &userID, options, session)
}

// passkeyCheckOptions makes the challenge of a check of userID's
// passkeys: theirs only, user verification required.
func (s *Store) passkeyCheckOptions(ctx context.Context, rp RelyingParty, userID string) (*protocol.CredentialAssertion, *webauthn.SessionData, error) {
	wa, err := rp.webAuthn()
	if err != nil {
		return nil, nil, err
	}
	user, err := s.passkeyUser(s.read(ctx), userID)
	if err != nil {
		return nil, nil, err
	}
	if len(user.creds) == 0 {
		return nil, nil, Errorf(CodeNotFound, "This user has no passkey")
	}
	return wa.BeginLogin(user, webauthn.WithUserVerification(protocol.VerificationRequired))
}

// FinishPasskeyCheck verifies the browser's answer to BeginPasskeyCheck's
// options for the same user, and records the passkey's use (counter, last
// used). It refuses like PasskeySignIn, and a passkey of another user.
// It records no event of its own: the caller's step (session/signed_in,
// a re-authentication) does.
func (s *Store) FinishPasskeyCheck(ctx context.Context, rp RelyingParty, userID, token string, credential []byte) error {
	session, err := s.takeCeremony(ctx, token, ceremonyCheck, userID)
	if err != nil {
		return err
	}
	used, err := s.verifyAssertion(ctx, rp, *session, credential, userID)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error { return s.recordPasskeyUse(tx, used) })
}

// beginCeremony stores the challenge and returns the options as JSON and
// the ceremony's token. Expired ceremonies are dropped on the way.
func (s *Store) beginCeremony(ctx context.Context, purpose string, userID *string, options any, session *webauthn.SessionData) ([]byte, string, error) {
	token := randomHex(32)
	opts, err := s.storeCeremony(ctx, token, purpose, userID, options, session)
	if err != nil {
		return nil, "", err
	}
	return opts, token, nil
}

// storeCeremony stores the challenge under token, in place of any
// ceremony that token had, and returns the options as JSON.
func (s *Store) storeCeremony(ctx context.Context, token, purpose string, userID *string, options any, session *webauthn.SessionData) ([]byte, error) {
	opts, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(session)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("expires_at < ? OR id = ?", now, hashSecret(token)).Delete(&PasskeyCeremony{}).Error; err != nil {
			return err
		}
		return tx.Create(&PasskeyCeremony{ID: hashSecret(token), Purpose: purpose, UserID: userID,
			SessionData: string(data), ExpiresAt: now.Add(PasskeyCeremonyTTL)}).Error
	})
	if err != nil {
		return nil, err
	}
	return opts, nil
}

// takeCeremony deletes the token's ceremony, in a transaction of its own
// so that it is used up even when the answer is then refused, and
// returns its challenge if it has the purpose, belongs to userID (when
// given) and has not expired.
func (s *Store) takeCeremony(ctx context.Context, token, purpose, userID string) (*webauthn.SessionData, error) {
	if token == "" || len(token) > 128 {
		return nil, errPasskeyCeremony
	}
	var c PasskeyCeremony
	err := s.write(ctx, func(tx *gorm.DB) error {
		err := tx.Where("id = ?", hashSecret(token)).Take(&c).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errPasskeyCeremony
		} else if err != nil {
			return err
		}
		if res := tx.Delete(&c); res.Error != nil {
			return res.Error
		} else if res.RowsAffected == 0 {
			return errPasskeyCeremony // answered concurrently
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.Purpose != purpose || !s.Now().Before(c.ExpiresAt) ||
		userID != "" && (c.UserID == nil || *c.UserID != userID) {
		return nil, errPasskeyCeremony
	}
	var session webauthn.SessionData
	if err := json.Unmarshal([]byte(c.SessionData), &session); err != nil {
		return nil, err
	}
	return &session, nil
}

// usedPasskey is an assertion verifyAssertion accepted.
type usedPasskey struct {
	passkey   *Passkey
	user      *User
	signCount int64
}

// verifyAssertion checks a browser's assertion against the ceremony's
// challenge and the stored passkey: signature, origin, RP id, user
// verification, owner (userID when given, else the user handle), an
// active owner, and a signature counter that advances. A counter that
// goes back, or stays when it was not zero, is refused and recorded as
// passkey/clone_suspected in a transaction of its own.
func (s *Store) verifyAssertion(ctx context.Context, rp RelyingParty, session webauthn.SessionData, credential []byte, userID string) (*usedPasskey, error) {
	wa, err := rp.webAuthn()
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credential)
	if err != nil {
		return nil, refusedPasskey(err)
	}
	var p Passkey
	err = s.read(ctx).Where("credential_id = ?", base64.RawURLEncoding.EncodeToString(parsed.RawID)).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, refusedPasskey(errors.New("unknown credential"))
	} else if err != nil {
		return nil, err
	}
	if userID != "" && p.UserID != userID {
		return nil, refusedPasskey(errors.New("the credential belongs to another user"))
	}
	user, err := s.passkeyUser(s.read(ctx), p.UserID)
	if err != nil {
		return nil, err
	}
	if user.u.Status != UserActive {
		return nil, refusedPasskey(errors.New("the user is deactivated"))
	}
	if userID != "" {
		_, err = wa.ValidateLogin(user, session, parsed)
	} else {
		_, _, err = wa.ValidatePasskeyLogin(func(_, handle []byte) (webauthn.User, error) {
			if string(handle) != p.UserID {
				return nil, errors.New("the user handle names another user")
			}
			return user, nil
		}, session, parsed)
	}
	if err != nil {
		return nil, refusedPasskey(err)
	}
	count := int64(parsed.Response.AuthenticatorData.Counter)
	if (count != 0 || p.SignCount != 0) && count <= p.SignCount {
		err := s.write(ctx, func(tx *gorm.DB) error {
			return s.auditPersonal(tx, Actor{UserID: user.u.ID, Email: user.u.Email}, user.u.ID, "passkey", "clone_suspected",
				[]string{lrn("passkey", p.ID)}, map[string]any{"name": p.Name, "stored_count": p.SignCount, "presented_count": count})
		})
		if err != nil {
			return nil, err
		}
		return nil, errPasskeyCloned
	}
	return &usedPasskey{passkey: &p, user: user.u, signCount: count}, nil
}

// recordPasskeyUse stores the accepted counter and the time of use. The
// update requires the counter it was checked against, so of two
// assertions racing with the same counter only one passes.
func (s *Store) recordPasskeyUse(tx *gorm.DB, used *usedPasskey) error {
	res := tx.Model(&Passkey{}).Where("id = ? AND sign_count = ?", used.passkey.ID, used.passkey.SignCount).
		Updates(map[string]any{"sign_count": used.signCount, "last_used_at": s.Now()})
	if res.Error != nil {
		return res.Error
	} else if res.RowsAffected == 0 && used.signCount != 0 {
		return errPasskeyCloned
	}
	return nil
}
