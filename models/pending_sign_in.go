package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// PendingSignIn is a user half signed in: their first factor (password or
// link) was right, and a second factor is still to come. It is not a
// session: it opens no page; the browser holds its token in a cookie of
// its own, and only the token's SHA-256 is stored. It remembers the
// origin of the session it will start and the path the browser asked
// for. Reason says what the second step is: a code of the user's second
// factor, or enrolling one an account requires of them.
type PendingSignIn struct {
	ID         string    `gorm:"primaryKey;size:32"`
	TokenHash  string    `gorm:"size:64;not null;uniqueIndex"`
	UserID     string    `gorm:"size:32;not null;index"`
	SourceIP   string    `gorm:"size:45;not null"`
	UserAgent  string    `gorm:"size:512;not null"`
	Method     string    `gorm:"size:64;not null"`
	NewBrowser bool      `gorm:"not null"`
	NextPath   string    `gorm:"size:2048;not null"`
	Reason     string    `gorm:"size:16;not null"`
	Attempts   int       `gorm:"not null"`
	ExpiresAt  time.Time `gorm:"not null"`
	CreatedAt  time.Time `gorm:"not null"`
}

// Why a sign-in is pending.
const (
	PendingSecondFactor = "second-factor"
	PendingEnrol        = "enrol"
)

// PendingSignInTTL is how long a user has for the second step.
const PendingSignInTTL = 5 * time.Minute

// MaxPendingAttempts is how many codes one pending sign-in may try; then
// it is dropped and the password must be typed again, on top of the
// dashboard's rate limits.
const MaxPendingAttempts = 5

// SecondStepNeeded is what SignIn, CompletePasswordReset and every other
// way of signing in return instead of a session when the first factor was
// right but the user has, or must enrol, a second factor: the pending
// sign-in's token and its reason. It is an error so that a caller that
// does not handle it starts no session.
type SecondStepNeeded struct {
	Token  string
	Reason string
}

func (e *SecondStepNeeded) Error() string { return "a second step is needed to sign in: " + e.Reason }

// AsSecondStep returns the second step err asks for, if it is one.
func AsSecondStep(err error) (*SecondStepNeeded, bool) {
	var s *SecondStepNeeded
	ok := errors.As(err, &s)
	return s, ok
}

var errPendingInvalid = &Error{Code: CodeNotFound, Message: "This sign-in has expired or was tried too often",
	Suggestion: "Sign in again with your password"}

// IsPendingInvalid reports whether err says the pending sign-in is gone.
func IsPendingInvalid(err error) bool { return errors.Is(err, errPendingInvalid) }

// firstFactorOnly reports whether a sign-in by method has proved one
// factor only, so a second may be asked for.
func firstFactorOnly(method string) bool { return method == MethodPassword || method == MethodLink }

// holdForSecondStep is startSession's check, in its transaction: a user
// signing in with one factor who has a second factor, or must have one,
// gets a pending sign-in instead of a session.
func (s *Store) holdForSecondStep(tx *gorm.DB, u *User, origin SessionOrigin) (*SecondStepNeeded, error) {
	if !firstFactorOnly(origin.Method) && !origin.SingleFactor {
		return nil, nil
	}
	reason := PendingSecondFactor
	if has, err := userHasSecondFactor(tx, u.ID); err != nil {
		return nil, err
	} else if !has {
		must, err := s.mustHaveSecondFactor(tx, u)
		if err != nil || !must {
			return nil, err
		}
		reason = PendingEnrol
	}
	now := s.Now()
	if err := tx.Where("user_id = ? AND expires_at < ?", u.ID, now).Delete(&PendingSignIn{}).Error; err != nil {
		return nil, err
	}
	token := randomHex(32)
	p := PendingSignIn{ID: NewID(), TokenHash: hashSecret(token), UserID: u.ID,
		SourceIP: truncate(origin.SourceIP, 45), UserAgent: truncate(origin.UserAgent, 512), Method: truncate(origin.Method, 64),
		NewBrowser: origin.NewBrowser, NextPath: truncate(origin.Next, 2048), Reason: reason,
		ExpiresAt: now.Add(PendingSignInTTL), CreatedAt: now}
	if err := tx.Create(&p).Error; err != nil {
		return nil, err
	}
	return &SecondStepNeeded{Token: token, Reason: reason}, nil
}

// PendingSignInByToken returns the pending sign-in token stands for, if
// it has not expired, else errPendingInvalid.
func (s *Store) PendingSignInByToken(ctx context.Context, token string) (*PendingSignIn, error) {
	return s.pendingByToken(s.read(ctx), token)
}

func (s *Store) pendingByToken(db *gorm.DB, token string) (*PendingSignIn, error) {
	if token == "" || len(token) > 128 {
		return nil, errPendingInvalid
	}
	var p PendingSignIn
	err := db.Where("token_hash = ?", hashSecret(token)).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errPendingInvalid
	} else if err != nil {
		return nil, err
	}
	if !s.Now().Before(p.ExpiresAt) || p.Attempts >= MaxPendingAttempts {
		return nil, errPendingInvalid
	}
	return &p, nil
}

// countPendingAttempt counts one code tried on the pending sign-in, in a
// transaction of its own that stays even when the code is wrong; the
// last allowed attempt still runs. An expired or exhausted one is deleted.
func (s *Store) countPendingAttempt(ctx context.Context, token, reason string) (*PendingSignIn, error) {
	var p *PendingSignIn
	err := s.write(ctx, func(tx *gorm.DB) error {
		var err error
		if p, err = s.pendingByToken(tx, token); err != nil {
			if IsPendingInvalid(err) {
				return tx.Where("token_hash = ?", hashSecret(token)).Delete(&PendingSignIn{}).Error
			}
			return err
		}
		if p.Reason != reason {
			p = nil
			return nil
		}
		// Counted in the database, not from the row read above: concurrent
		// attempts on PostgreSQL would each write the same count and the
		// cap would barely move.
		res := tx.Model(&PendingSignIn{}).Where("id = ? AND attempts < ? AND expires_at > ?", p.ID, MaxPendingAttempts, s.Now()).
			Update("attempts", gorm.Expr("attempts + 1"))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			p = nil
			return nil
		}
		p.Attempts++
		return nil
	})
	if err == nil && p == nil {
		err = errPendingInvalid
	}
	return p, err
}

// SignedIn is a finished second step: the new session, its token (never
// stored), the path the browser asked for, and after an enrolment the
// recovery codes to show once.
type SignedIn struct {
	Session       *Session
	Token         string
	Next          string
	RecoveryCodes []string
}

// CompletePendingSignIn finishes a pending sign-in with a code of the
// user's second factor: a TOTP code, or a recovery code (used up). The
// session's method is the first one's and the factor's ("password+totp",
// "password+recovery"). A wrong code fails with IsBadSecondFactorCode
// and counts against MaxPendingAttempts; an expired or exhausted pending
// sign-in fails with IsPendingInvalid.
func (s *Store) CompletePendingSignIn(ctx context.Context, token, code string) (*SignedIn, error) {
	p, err := s.countPendingAttempt(ctx, token, PendingSecondFactor)
	if err != nil {
		return nil, err
	}
	origin := SessionOrigin{SourceIP: p.SourceIP, UserAgent: p.UserAgent, NewBrowser: p.NewBrowser,
		Method: p.Method + "+" + factorOfCode(code)}
	sess, stoken, err := s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		u, err := s.takePending(tx, token)
		if err != nil {
			return nil, err
		}
		if _, err := s.checkSecondFactor(tx, u.Actor(), u.ID, code); err != nil {
			return nil, err
		}
		return u, nil
	})
	if err != nil {
		return nil, err
	}
	return &SignedIn{Session: sess, Token: stoken, Next: p.NextPath}, nil
}

// StartPendingEnrolment gives a user whose account requires a second
// factor, half signed in for that reason, the secret to enrol (the same
// one until confirmed).
func (s *Store) StartPendingEnrolment(ctx context.Context, token string) (*TOTPEnrolment, error) {
	var out *TOTPEnrolment
	err := s.write(ctx, func(tx *gorm.DB) error {
		p, err := s.pendingByToken(tx, token)
		if err != nil {
			return err
		}
		if p.Reason != PendingEnrol {
			return errPendingInvalid
		}
		var u User
		if err := tx.Where("id = ?", p.UserID).Take(&u).Error; err != nil {
			return translate(err)
		}
		f, err := s.startEnrolment(tx, u.ID, p.CreatedAt)
		if err != nil {
			return err
		}
		out = enrolmentOf(f, u.Email)
		return nil
	})
	return out, err
}

// CompletePendingEnrolment confirms the enrolment of a user half signed
// in for that reason with a code from their app, and starts their
// session ("<method>+totp"); the result holds their recovery codes, to
// show once. Attempts count as CompletePendingSignIn's do.
func (s *Store) CompletePendingEnrolment(ctx context.Context, token, code string) (*SignedIn, error) {
	p, err := s.countPendingAttempt(ctx, token, PendingEnrol)
	if err != nil {
		return nil, err
	}
	var codes []string
	origin := SessionOrigin{SourceIP: p.SourceIP, UserAgent: p.UserAgent, NewBrowser: p.NewBrowser,
		Method: p.Method + "+" + FactorTOTP}
	sess, stoken, err := s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		u, err := s.takePending(tx, token)
		if err != nil {
			return nil, err
		}
		codes, err = s.confirmEnrolment(tx, u.Actor(), u.ID, code, false)
		return u, err
	})
	if err != nil {
		return nil, err
	}
	return &SignedIn{Session: sess, Token: stoken, Next: p.NextPath, RecoveryCodes: codes}, nil
}

// takePending deletes the pending sign-in token stands for, in tx, and
// returns its user, who must still be active and, after a password, not
// meanwhile of a domain linked to single sign-on (errSSORequired); a
// wrong code rolls the deletion back with the rest.
func (s *Store) takePending(tx *gorm.DB, token string) (*User, error) {
	// Not pendingByToken: the attempt being made was counted already.
	var p PendingSignIn
	err := tx.Where("token_hash = ? AND expires_at > ?", hashSecret(token), s.Now()).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errPendingInvalid
	} else if err != nil {
		return nil, err
	}
	res := tx.Where("id = ?", p.ID).Delete(&PendingSignIn{})
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected != 1 {
		return nil, errPendingInvalid // finished by a concurrent request
	}
	var u User
	if err := tx.Where("id = ?", p.UserID).Take(&u).Error; err != nil {
		return nil, translate(err)
	}
	if u.Status != UserActive {
		return nil, errPendingInvalid
	}
	// A domain linked to single sign-on since the password was typed
	// stops the sign-in, as it would have stopped the password.
	if p.Method == MethodPassword {
		if err := refuseSSODomain(tx, u.Email); err != nil {
			return nil, err
		}
	}
	return &u, nil
}
