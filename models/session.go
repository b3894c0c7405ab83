package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// sessionTouchInterval bounds how often a session's LastSeenAt is written:
// the idle timeout needs minutes, not every request.
const sessionTouchInterval = time.Minute

// Session is a user signed in to the dashboard. The browser holds the
// token in a cookie; only its SHA-256 is stored, so a copy of the database
// signs nobody in.
type Session struct {
	ID         string    `gorm:"primaryKey;size:32"`
	TokenHash  string    `gorm:"size:64;not null;uniqueIndex"`
	UserID     string    `gorm:"size:32;not null;index"`
	CSRFToken  string    `gorm:"size:64;not null"`
	Flash      string    `gorm:"size:512;not null"` // shown once, on the next page
	SourceIP   string    `gorm:"size:45;not null"`
	CreatedAt  time.Time `gorm:"not null"`
	LastSeenAt time.Time `gorm:"not null"`
	Once       *string   // SetSessionOnce's value, until taken
	// AccountID is the account the session acts on (SwitchAccount); nil
	// until chosen, meaning the user's default account (defaultAccount).
	AccountID *string `gorm:"size:32"`
	// UserAgent is the browser's User-Agent header at sign-in, for the
	// user's list of their sessions.
	UserAgent string `gorm:"size:512;not null;default:''"`
	// AuthMethod is how the user proved who they are at sign-in (a
	// Method* value, or MethodSSOPrefix and the provider's id).
	AuthMethod string `gorm:"size:64;not null;default:'password'"`
	// AuthenticatedAt is when the user last proved who they are in this
	// session: at sign-in, or again before a sensitive action
	// (RecentlyAuthenticated).
	AuthenticatedAt time.Time `gorm:"not null;default:'1970-01-01T00:00:00Z'"`
	// Acting is the user acting on the session's account with their role
	// there, as SessionByToken found it at this request.
	Acting Actor `gorm:"-"`
}

// How a session's user proved who they are, as Session.AuthMethod and
// the session/signed_in event record it.
const (
	MethodPassword = "password"
	// MethodLink is a link sent by mail: setup, password reset, invitation.
	MethodLink = "link"
	// MethodSSOPrefix and a provider's id is a sign-in through single sign-on.
	MethodSSOPrefix = "sso:"
)

// ReauthWindow is how long after proving who they are a user may take a
// sensitive action (reveal a signing secret, change a password or email,
// add or remove a second factor or passkey, create a full-access key)
// without being asked again.
const ReauthWindow = 10 * time.Minute

// RecentlyAuthenticated reports whether the session's user proved who
// they are within ReauthWindow of now.
func (s *Session) RecentlyAuthenticated(now time.Time) bool {
	return now.Sub(s.AuthenticatedAt) < ReauthWindow
}

// SessionOrigin is where a new session comes from: the browser's address
// and User-Agent, how its user proved who they are (a Method* value), and
// whether the browser is one the user has not signed in from before.
type SessionOrigin struct {
	SourceIP   string
	UserAgent  string
	Method     string
	NewBrowser bool
	// Next is the local path the browser asked for, kept through a
	// second step (PendingSignIn).
	Next string
	// SingleFactor marks a sign-in whose Method would count as complete
	// but proved one factor only (single sign-on through a provider the
	// user's email domain is not linked to): it is held for the second
	// factor as a password is.
	SingleFactor bool
}

// ErrNoSession is returned for a session token that is unknown, expired,
// signed out, or whose user is deactivated: the visitor must sign in.
var ErrNoSession = errors.New("no such session")

var errBadCredentials = &Error{Code: CodeForbidden, Message: "The email or password is incorrect",
	Suggestion: "Check both and try again"}

// IsBadCredentials reports whether err is SignIn's answer to a wrong
// email or password; it is the same answer for both.
func IsBadCredentials(err error) bool { return errors.Is(err, errBadCredentials) }

// SignInInput is a sign-in attempt. ReplacesToken is the session token
// the browser already holds, if any: it is ended, so a session id fixed
// before sign-in is worthless after it. SourceIP is recorded. Device is
// what RecognizeDevice made of the browser's device cookie: a device
// known to this login has its password checked before any other waiting
// attempt.
type SignInInput struct {
	Email         string
	Password      string
	ReplacesToken string
	SourceIP      string
	UserAgent     string
	Device        Device
	Next          string // kept through a second step
}

// Validate checks the email against the text rule, so that a sign-in
// attempt with a control character is refused beside the field, the same
// on every database, instead of reaching a query.
func (in *SignInInput) Validate() error {
	var f FieldErrors
	checkLine(&f, "email", in.Email)
	return f.Err()
}

// SignIn checks the email and password and starts a session, recording a
// session/signed_in event. It returns the session and its token, which is
// never stored. An unknown email, a wrong password and a deactivated user
// all fail with the same CodeForbidden error, in the same time. An email
// that breaks the text rule is CodeInvalidParameters on "email".
func (s *Store) SignIn(ctx context.Context, in SignInInput) (*Session, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	if err := refuseSSODomain(s.read(ctx), in.Email); err != nil {
		return nil, "", err
	}
	prio := inTurn
	if in.Device.knows(in.Email) {
		prio = knownDeviceFirst
	}
	u, err := s.UserByEmail(ctx, in.Email)
	if err != nil {
		if ErrorCode(err) != CodeNotFound {
			return nil, "", err
		}
		if _, err := s.passwordMatches(ctx, prio, s.dummyHash(), in.Password); err != nil {
			return nil, "", err
		}
		return nil, "", errBadCredentials
	}
	if ok, err := s.passwordMatches(ctx, prio, []byte(u.PasswordHash), in.Password); err != nil {
		return nil, "", err
	} else if !ok || u.Status != UserActive {
		return nil, "", errBadCredentials
	}
	origin := SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodPassword,
		NewBrowser: !in.Device.knows(in.Email), Next: in.Next}
	return s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		if in.ReplacesToken != "" {
			if err := tx.Where("token_hash = ?", hashSecret(in.ReplacesToken)).Delete(&Session{}).Error; err != nil {
				return nil, err
			}
		}
		return u, nil
	})
}

// startSession signs a user in: in one write transaction, prepare does
// what comes first (checks a link, ends a session, creates the user) and
// returns the user, who then gets a new session and a session/signed_in
// event (the origin recorded); a password sign-in from a new browser
// also queues the new sign-in mail (newBrowserMail). Their expired sessions are dropped, so
// abandoned ones do not pile up. It returns the session and its token,
// which is never stored.
func (s *Store) startSession(ctx context.Context, origin SessionOrigin, prepare func(tx *gorm.DB) (*User, error)) (*Session, string, error) {
	token := randomHex(32)
	var sess *Session
	mailed := false
	var second *SecondStepNeeded
	err := s.write(ctx, func(tx *gorm.DB) error {
		u, err := prepare(tx)
		if err != nil {
			return err
		}
		if second, err = s.holdForSecondStep(tx, u, origin); err != nil || second != nil {
			return err
		}
		now := s.Now()
		if err := tx.Where("user_id = ? AND (last_seen_at < ? OR created_at < ?)", u.ID,
			now.Add(-s.cfg.SessionIdleTimeout), now.Add(-s.cfg.SessionMaxAge)).Delete(&Session{}).Error; err != nil {
			return err
		}
		sess = &Session{ID: NewID(), TokenHash: hashSecret(token), UserID: u.ID, CSRFToken: randomHex(32),
			SourceIP: truncate(origin.SourceIP, 45), UserAgent: truncate(origin.UserAgent, 512),
			AuthMethod: truncate(origin.Method, 64), CreatedAt: now, LastSeenAt: now, AuthenticatedAt: now}
		if err := tx.Create(sess).Error; err != nil {
			return err
		}
		actor, err := sessionActor(tx, u, nil)
		if err != nil {
			return err
		}
		actor.SessionID = sess.ID
		if origin.NewBrowser {
			if mailed, err = s.newBrowserMail(tx, u, sess); err != nil {
				return err
			}
		}
		return s.auditPersonal(tx, actor, u.ID, "session", "signed_in", []string{lrn("session", sess.ID)},
			map[string]any{"email": u.Email, "source_ip": sess.SourceIP, "method": sess.AuthMethod})
	})
	if err != nil {
		return nil, "", err
	}
	if second != nil {
		return nil, "", second
	}
	if mailed {
		s.wakeMail()
	}
	return sess, token, nil
}

// SessionByToken returns the session a browser's token stands for, with
// its user, and in sess.Acting the user acting on the session's account
// with their role there. It fails with ErrNoSession when the session is
// unknown, idle longer than the idle timeout, older than the maximum age,
// its user is deactivated or no longer a member of the account it chose;
// an expired session is deleted. LastSeenAt is written at
// most once a minute.
func (s *Store) SessionByToken(ctx context.Context, token string) (*Session, *User, error) {
	if token == "" || len(token) > 128 {
		return nil, nil, ErrNoSession
	}
	var sess Session
	err := s.read(ctx).Where("token_hash = ?", hashSecret(token)).Take(&sess).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, ErrNoSession
	} else if err != nil {
		return nil, nil, err
	}
	now := s.Now()
	if now.Sub(sess.LastSeenAt) > s.cfg.SessionIdleTimeout || now.Sub(sess.CreatedAt) > s.cfg.SessionMaxAge {
		err := s.write(ctx, func(tx *gorm.DB) error { return tx.Delete(&Session{}, "id = ?", sess.ID).Error })
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrNoSession
	}
	u, err := s.User(ctx, sess.UserID)
	if ErrorCode(err) == CodeNotFound || err == nil && u.Status != UserActive {
		return nil, nil, ErrNoSession
	} else if err != nil {
		return nil, nil, err
	}
	// Checked at every request: a member removed from the session's
	// account is signed out of it, a new role holds at once.
	if sess.Acting, err = sessionActor(s.read(ctx), u, sess.AccountID); err != nil {
		return nil, nil, err
	}
	sess.Acting.SessionID = sess.ID
	if now.Sub(sess.LastSeenAt) >= sessionTouchInterval {
		sess.LastSeenAt = now
		err := s.write(ctx, func(tx *gorm.DB) error { return tx.Model(&sess).Update("last_seen_at", now).Error })
		if err != nil {
			return nil, nil, err
		}
	}
	return &sess, u, nil
}

// SignOut ends the session the token stands for, recording a
// session/signed_out event. An unknown token is already signed out.
func (s *Store) SignOut(ctx context.Context, token string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		var sess Session
		err := tx.Where("token_hash = ?", hashSecret(token)).Take(&sess).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", sess.UserID).Take(&u).Error; err != nil {
			return err
		}
		if err := tx.Delete(&sess).Error; err != nil {
			return err
		}
		actor := Actor{UserID: u.ID, Email: u.Email, SessionID: sess.ID}
		return s.auditPersonal(tx, actor, u.ID, "session", "signed_out", []string{lrn("session", sess.ID)}, nil)
	})
}

// SetSessionFlash keeps a message for the session's next page: the
// dashboard redirects after a change and says on the next page what
// happened. It is a note to the user, not a change of state, so it is not
// audited.
func (s *Store) SetSessionFlash(ctx context.Context, sessionID, msg string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&Session{}).Where("id = ?", sessionID).Update("flash", truncate(msg, 512)).Error
	})
}

// ClearSessionFlash forgets the message once a page has shown it.
func (s *Store) ClearSessionFlash(ctx context.Context, sessionID string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&Session{}).Where("id = ? AND flash <> ''", sessionID).Update("flash", "").Error
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// dummyHashOnce returns a bcrypt hash of a random password, computed on
// first use at the store's cost.
func dummyHashOnce(cost int) func() []byte {
	return sync.OnceValue(func() []byte {
		h, err := bcrypt.GenerateFromPassword([]byte(randomHex(16)), cost)
		if err != nil {
			panic(err) // only for a cost outside bcrypt's range, a configuration bug
		}
		return h
	})
}
