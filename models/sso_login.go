package models

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// SSOLoginTTL is how long a single sign-on started at /sso/<id>/start
// may take at the provider before its callback is refused.
const SSOLoginTTL = 10 * time.Minute

// SSOLogin is a sign-in through single sign-on under way: what the
// callback needs to check the provider's answer. The row is found by the
// SHA-256 of the state sent to the provider, and belongs to the browser
// whose cookie hashes to BrowserHash, so a callback URL carried to another
// browser is refused. It works once, for SSOLoginTTL.
type SSOLogin struct {
	StateHash   string    `gorm:"primaryKey;size:64"`
	BrowserHash string    `gorm:"size:64;not null"`
	Provider    string    `gorm:"size:64;not null"`
	Nonce       string    `gorm:"size:64;not null"`
	Verifier    string    `gorm:"size:128;not null"` // PKCE code verifier
	Next        string    `gorm:"size:2048;not null"`
	ExpiresAt   time.Time `gorm:"not null;index"`
	// Purpose is "" for a sign-in, SSOPurposeReauth for a signed-in user
	// confirming who they are (BeginSSOReauth); UserID and SessionID are
	// that user and the session it confirms. They are kept in Next as
	// "reauth:<user id>:<session id>:<next>" (a sign-in's Next is a local
	// path, so it never starts so): no schema change.
	Purpose   string `gorm:"-"`
	UserID    string `gorm:"-"`
	SessionID string `gorm:"-"`
}

// packPurpose writes Purpose, UserID and SessionID into Next before the
// row is stored; unpackPurpose reads them back from a stored row.
func (l *SSOLogin) packPurpose() {
	if l.Purpose != "" {
		l.Next = l.Purpose + ":" + l.UserID + ":" + l.SessionID + ":" + truncate(l.Next, 1900)
	}
}

func (l *SSOLogin) unpackPurpose() {
	rest, ok := strings.CutPrefix(l.Next, SSOPurposeReauth+":")
	if !ok {
		return
	}
	user, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return
	}
	if session, next, ok := strings.Cut(rest, ":"); ok {
		l.Purpose, l.UserID, l.SessionID, l.Next = SSOPurposeReauth, user, session, next
	}
}

// SSOStart is what the dashboard sends the browser to the provider with:
// State and Nonce for the authorization request, Verifier to derive the
// PKCE challenge from, and BrowserToken for the browser's cookie. None of
// them is shown again.
type SSOStart struct {
	State, Nonce, Verifier, BrowserToken string
}

// errSSOLoginInvalid answers a callback whose state is unknown, used,
// expired, or started in another browser: the same answer for each.
var errSSOLoginInvalid = &Error{Code: CodeForbidden,
	Message:    "This single sign-on attempt is invalid, expired or was started in another browser",
	Suggestion: "Go back to the sign-in page and choose single sign-on again"}

// BeginSSOLogin stores a new sign-in through provider (an id the caller
// has configured) that returns to next, and returns its secrets. Expired
// attempts are dropped on the way. Nothing is audited: nobody has signed
// in yet.
func (s *Store) BeginSSOLogin(ctx context.Context, provider, next string) (*SSOStart, error) {
	return s.beginSSO(ctx, SSOLogin{Provider: truncate(provider, 64), Next: truncate(next, 2048)})
}

// beginSSO stores login (its provider, next and purpose set) with new
// secrets, and returns them.
func (s *Store) beginSSO(ctx context.Context, login SSOLogin) (*SSOStart, error) {
	start := &SSOStart{State: randomHex(24), Nonce: randomHex(24), BrowserToken: randomHex(32)}
	start.Verifier = randomHex(32) // 64 unreserved characters: RFC 7636 asks 43 to 128
	now := s.Now()
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("expires_at < ?", now).Delete(&SSOLogin{}).Error; err != nil {
			return err
		}
		login.StateHash, login.BrowserHash = hashSecret(start.State), hashSecret(start.BrowserToken)
		login.Nonce, login.Verifier, login.ExpiresAt = start.Nonce, start.Verifier, now.Add(SSOLoginTTL)
		login.packPurpose()
		return tx.Create(&login).Error
	})
	if err != nil {
		return nil, err
	}
	return start, nil
}

// TakeSSOLogin returns, and consumes, the sign-in under way that state
// names, when browserToken is the cookie of the browser that began it and
// it has not expired. Anything else fails with one CodeForbidden error;
// a state presented from another browser is consumed all the same, so a
// stolen callback URL cannot be tried twice.
func (s *Store) TakeSSOLogin(ctx context.Context, state, browserToken string) (*SSOLogin, error) {
	if state == "" || len(state) > 128 {
		return nil, errSSOLoginInvalid
	}
	var login SSOLogin
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("state_hash = ?", hashSecret(state)).Take(&login).Error; err != nil {
			return err
		}
		res := tx.Where("state_hash = ?", login.StateHash).Delete(&SSOLogin{})
		if res.Error == nil && res.RowsAffected != 1 {
			return gorm.ErrRecordNotFound // taken by a concurrent callback
		}
		return res.Error
	})
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errSSOLoginInvalid
	} else if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(browserToken)), []byte(login.BrowserHash)) != 1 ||
		!s.Now().Before(login.ExpiresAt) {
		return nil, errSSOLoginInvalid
	}
	login.unpackPurpose()
	return &login, nil
}
