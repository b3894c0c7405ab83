package models

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// PasswordResetTTL is how long a reset link printed by the operator works.
// A day, because the operator hands it over by hand, not by mail.
const PasswordResetTTL = 24 * time.Hour

// SelfServiceResetTTL is how long a reset link sent by email works: an
// hour, since a mailbox is a weaker place to leave a key than the
// operator's hand.
const SelfServiceResetTTL = time.Hour

// passwordResetPrefix names the settings rows of pending reset links:
// name is the prefix and the SHA-256 of the token, value the user's id and
// the expiry, so a copy of the database opens no link.
const passwordResetPrefix = "password_reset:"

// resetSettingName is the settings row of a reset token: the prefix and
// the first 192 bits of its SHA-256, which fit the 64-character name
// column and still cannot be guessed or collide.
func resetSettingName(token string) string {
	return passwordResetPrefix + hashSecret(token)[:48]
}

var errResetInvalid = &Error{Code: CodeNotFound, Message: "This password reset link is invalid, expired or already used",
	Suggestion: "Ask for a new link with \"Forgot your password?\" on the sign-in page"}

// StartPasswordReset issues a one-time link token for the user with the
// given email, replacing any earlier one of theirs; it works for
// PasswordResetTTL. Operator only. Records user/updated.
func (s *Store) StartPasswordReset(ctx context.Context, actor Actor, email string) (string, error) {
	if !actor.Operator {
		return "", Errorf(CodeForbidden, "Only the operator can reset a password")
	}
	var token string
	err := s.write(ctx, func(tx *gorm.DB) error {
		u, err := userByEmail(tx, email)
		if err != nil {
			return err
		}
		if token, err = s.issueResetToken(tx, u, PasswordResetTTL); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"password_reset": "link issued"})
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// issueResetToken stores a new reset token of u valid for ttl in place of
// any earlier one of theirs, and returns it.
func (s *Store) issueResetToken(tx *gorm.DB, u *User, ttl time.Duration) (string, error) {
	if err := lockUser(tx, u.ID); err != nil {
		return "", translate(err)
	}
	if err := endResetLinks(tx, u.ID); err != nil {
		return "", err
	}
	token := randomHex(32)
	expires := s.Now().Add(ttl).UTC().Format(time.RFC3339)
	return token, tx.Create(&Setting{Name: resetSettingName(token), Value: u.ID + " " + expires}).Error
}

// RequestPasswordReset is "Forgot your password?": it queues one
// outbox message to email, whether or not it names a user, and nothing
// else, so neither the answer nor the request's timing tells whether the
// address has an account. The mail worker resolves the message when it
// sends it (ResolveMail): a known address gets a one-time link valid
// SelfServiceResetTTL, recorded then as user/updated; an unknown one is
// dropped. An address that is not valid queues nothing. Throttling is the
// caller's (per email and per client address).
func (s *Store) RequestPasswordReset(ctx context.Context, email, sourceIP string) error {
	email = normalizeEmail(email)
	var f FieldErrors
	if validateEmail(&f, "email", email); f.Err() != nil {
		return nil
	}
	if err := refuseSSODomain(s.read(ctx), email); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *gorm.DB) error {
		return s.enqueueMail(tx, MailPasswordReset, email, map[string]string{resetRequestKey: sourceIP})
	})
	if err == nil {
		s.wakeMail()
	}
	return err
}

// PasswordResetInput is the new password chosen through a reset link.
type PasswordResetInput struct {
	Token           string
	Password        string
	PasswordConfirm string
	SourceIP        string
	UserAgent       string
}

// Validate checks the new password and its confirmation.
func (in PasswordResetInput) Validate() error {
	var f FieldErrors
	validatePassword(&f, "password", in.Password)
	if in.PasswordConfirm != in.Password {
		f.Add("password_confirm", "does not match the password")
	}
	return f.Err()
}

// CheckPasswordResetToken reports whether token opens a reset link, and
// for whom; an unknown, used or expired token fails with CodeNotFound.
func (s *Store) CheckPasswordResetToken(ctx context.Context, token string) (*User, error) {
	userID, err := s.resetTokenUser(s.read(ctx), token)
	if err != nil {
		return nil, err
	}
	return s.User(ctx, userID)
}

func (s *Store) resetTokenUser(db *gorm.DB, token string) (string, error) {
	var row Setting
	err := db.Where("name = ?", resetSettingName(token)).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", errResetInvalid
	} else if err != nil {
		return "", err
	}
	userID, expires, ok := strings.Cut(row.Value, " ")
	at, perr := time.Parse(time.RFC3339, expires)
	if !ok || perr != nil || !s.now().Before(at) {
		return "", errResetInvalid
	}
	return userID, nil
}

// CompletePasswordReset sets the new password, consumes the link, ends
// every session of the user and signs them in, in one transaction; it
// records user/updated. Invalid input leaves the link usable.
func (s *Store) CompletePasswordReset(ctx context.Context, in PasswordResetInput) (*Session, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	// The link is checked before the (costly) hash; the transaction below
	// checks it again and consumes it.
	if _, err := s.resetTokenUser(s.read(ctx), in.Token); err != nil {
		return nil, "", err
	}
	hash, err := s.hashPassword(ctx, inTurn, in.Password) // a link, not a sign-in
	if err != nil {
		return nil, "", err
	}
	return s.startSession(ctx, SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodLink}, func(tx *gorm.DB) (*User, error) {
		userID, err := s.resetTokenUser(tx, in.Token)
		if err != nil {
			return nil, err
		}
		res := tx.Where("name = ?", resetSettingName(in.Token)).Delete(&Setting{})
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected != 1 {
			return nil, errResetInvalid // used by a concurrent request
		}
		u, ended, err := s.replacePassword(tx, userID, string(hash))
		if err != nil {
			return nil, err
		}
		if err := refuseSSODomain(tx, u.Email); err != nil {
			return nil, err
		}
		return u, s.auditPersonal(tx, u.Actor(), u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"changed": []string{"password"}, "password_reset": "link used", "sessions_ended": ended})
	})
}

// SetPassword is the operator setting a user's password directly: it ends
// every session of the user and records user/updated.
func (s *Store) SetPassword(ctx context.Context, actor Actor, email, password string) error {
	if !actor.Operator {
		return Errorf(CodeForbidden, "Only the operator can set another user's password")
	}
	var f FieldErrors
	validatePassword(&f, "password", password)
	if err := f.Err(); err != nil {
		return err
	}
	hash, err := s.hashPassword(ctx, actor.passwordPriority(), password)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		u, err := userByEmail(tx, email)
		if err != nil {
			return err
		}
		_, ended, err := s.replacePassword(tx, u.ID, string(hash))
		if err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"changed": []string{"password"}, "sessions_ended": ended})
	})
}

// endResetLinks deletes userID's pending reset links, in tx.
func endResetLinks(tx *gorm.DB, userID string) error {
	return tx.Where("name LIKE ? AND value LIKE ?", passwordResetPrefix+"%", userID+" %").Delete(&Setting{}).Error
}

// replacePassword stores a new password hash and signs the user out
// everywhere: whoever knew the old password loses their sessions, their
// half-finished sign-ins and any email change they asked for. It says how
// many sessions ended.
func (s *Store) replacePassword(tx *gorm.DB, userID, hash string) (*User, int64, error) {
	var u User
	if err := tx.Where("id = ?", userID).Take(&u).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, 0, errResetInvalid
		}
		return nil, 0, err
	}
	u.PasswordHash = hash
	err := tx.Model(&User{}).Where("id = ?", u.ID).
		Updates(map[string]any{"password_hash": hash, "updated_at": s.Now()}).Error
	if err != nil {
		return nil, 0, err
	}
	if err := endEmailChanges(tx, u.ID); err != nil {
		return nil, 0, err
	}
	ended, err := endSignIns(tx, u.ID, "")
	return &u, ended, err
}

// Users lists every user, oldest first, for the operator.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var out []User
	err := s.read(ctx).Order("created_at, id").Find(&out).Error
	return out, translate(err)
}
