package models

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// EmailChangeTTL is how long the confirmation link of an email change
// works.
const EmailChangeTTL = 24 * time.Hour

// emailChangePrefix names the settings rows of pending email changes:
// name is the prefix and the SHA-256 of the token, value the user's id,
// the expiry and the new address, so a copy of the database opens no link.
const emailChangePrefix = "email_change:"

// emailCancelPrefix names the settings rows of the one-time "this was not
// me" links mailed to the current address with a change's notice: value
// the user's id and the expiry. Opening one ends the pending change.
const emailCancelPrefix = "email_cancel:"

func emailCancelSettingName(token string) string {
	return emailCancelPrefix + hashSecret(token)[:48]
}

var errEmailCancelInvalid = &Error{Code: CodeNotFound, Message: "This cancel link is invalid, expired or already used",
	Suggestion: "Sign in and check your email on your account page; change your password if you did not ask for the change"}

// endEmailChanges deletes userID's pending email change and its cancel
// link, in tx: a change of password or of email ends whatever change was
// pending, so a session that knew the old password cannot finish one.
func endEmailChanges(tx *gorm.DB, userID string) error {
	return tx.Where("(name LIKE ? OR name LIKE ?) AND value LIKE ?", emailChangePrefix+"%", emailCancelPrefix+"%", userID+" %").
		Delete(&Setting{}).Error
}

// lockUser takes userID's row FOR UPDATE on PostgreSQL (SQLite's single
// writer already serialises), so concurrent requests that replace a
// user's pending link leave exactly one.
func lockUser(tx *gorm.DB, userID string) error {
	var u User
	return tx.Clauses(forUpdate).Select("id").Where("id = ?", userID).Take(&u).Error
}

func emailChangeSettingName(token string) string {
	return emailChangePrefix + hashSecret(token)[:48]
}

var errEmailChangeInvalid = &Error{Code: CodeNotFound, Message: "This email confirmation link is invalid, expired or already used",
	Suggestion: "Change your email again from your account page to get a new link"}

// EmailChangeInput is a signed-in user asking to use another address.
type EmailChangeInput struct {
	NewEmail        string
	CurrentPassword string
}

// Validate checks the new address and that the password was given.
func (in EmailChangeInput) Validate() error { return in.validate(true) }

// validate checks the input; withPassword false for a user who has no
// password (their proof is a recent authentication).
func (in EmailChangeInput) validate(withPassword bool) error {
	var f FieldErrors
	validateEmail(&f, "new_email", in.NewEmail)
	if withPassword && in.CurrentPassword == "" {
		f.Add("current_password", "is required")
	}
	return f.Err()
}

// RequestEmailChange checks the actor's password and queues a
// confirmation link (valid EmailChangeTTL) to the new address and a
// notice to the current one, replacing any earlier pending change, in one
// transaction with a user/updated audit event. Nothing changes until the
// link is opened (ConfirmEmailChange). Signed-in users only; a wrong
// password is a field error on current_password. A user without a
// password (joined through single sign-on) gives none: their session
// must have confirmed who they are within ReauthWindow, else
// ErrReauthRequired. A move out of, or into, a domain linked to single
// sign-on is refused (CodeForbidden on new_email): the domain's owners
// manage its addresses.
func (s *Store) RequestEmailChange(ctx context.Context, actor Actor, in EmailChangeInput) error {
	if actor.UserID == "" {
		return Errorf(CodeForbidden, "Only a signed-in user can change their email")
	}
	u, err := s.User(ctx, actor.UserID)
	if err != nil {
		return err
	}
	if err := in.validate(u.HasPassword()); err != nil {
		return err
	}
	newEmail := normalizeEmail(in.NewEmail)
	if !u.HasPassword() {
		// No password to ask for (a user who joined through single
		// sign-on): a recent confirmation of who they are is the proof.
		if err := s.requireRecentAuth(s.read(ctx), actor); err != nil {
			return err
		}
	} else if ok, err := s.passwordMatches(ctx, actor.passwordPriority(), []byte(u.PasswordHash), in.CurrentPassword); err != nil {
		return err
	} else if !ok {
		return InvalidField("current_password", "is incorrect")
	}
	if newEmail == u.Email {
		// "Back to my own address" ends a pending change, which is what a
		// user who did not ask for one will try.
		return s.write(ctx, func(tx *gorm.DB) error {
			if err := lockUser(tx, u.ID); err != nil {
				return translate(err)
			}
			if err := endEmailChanges(tx, u.ID); err != nil {
				return err
			}
			if err := s.passwordWasProof(tx, actor, u); err != nil {
				return err
			}
			return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
				map[string]any{"email_change": "cancelled"})
		})
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := lockUser(tx, u.ID); err != nil {
			return translate(err)
		}
		if err := refuseSSOEmailMove(tx, u.Email, newEmail); err != nil {
			return err
		}
		if err := throttleEmailChanges(tx, u.Email, newEmail, s.Now()); err != nil {
			return err
		}
		if err := endEmailChanges(tx, u.ID); err != nil {
			return err
		}
		if err := s.passwordWasProof(tx, actor, u); err != nil {
			return err
		}
		token, cancel := randomHex(32), randomHex(32)
		until := s.Now().Add(EmailChangeTTL)
		expires := until.UTC().Format(time.RFC3339)
		row := Setting{Name: emailChangeSettingName(token), Value: u.ID + " " + expires + " " + newEmail}
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		if err := tx.Create(&Setting{Name: emailCancelSettingName(cancel), Value: u.ID + " " + expires}).Error; err != nil {
			return err
		}
		if err := s.enqueueMailUntil(tx, MailEmailChangeConfirm, newEmail, until,
			map[string]string{"token": token, "old_email": u.Email, "new_email": newEmail}); err != nil {
			return err
		}
		if err := s.enqueueMailUntil(tx, MailEmailChangeNotice, u.Email, until,
			map[string]string{"old_email": u.Email, "new_email": newEmail, "cancel_token": cancel}); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"email_change": "confirmation sent", "new_email": newEmail})
	})
	if err == nil {
		s.wakeMail()
	}
	return err
}

// PendingEmailChange is a change of address waiting for its link.
type PendingEmailChange struct {
	UserID, OldEmail, NewEmail string
}

// CheckEmailChangeToken reports the change token would make; an unknown,
// used or expired token fails with CodeNotFound.
func (s *Store) CheckEmailChangeToken(ctx context.Context, token string) (*PendingEmailChange, error) {
	p, err := s.emailChangeOf(s.read(ctx), token)
	if err != nil {
		return nil, err
	}
	u, err := s.User(ctx, p.UserID)
	if err != nil {
		return nil, errEmailChangeInvalid
	}
	p.OldEmail = u.Email
	return p, nil
}

func (s *Store) emailChangeOf(db *gorm.DB, token string) (*PendingEmailChange, error) {
	var row Setting
	err := db.Where("name = ?", emailChangeSettingName(token)).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errEmailChangeInvalid
	} else if err != nil {
		return nil, err
	}
	parts := strings.SplitN(row.Value, " ", 3)
	if len(parts) != 3 {
		return nil, errEmailChangeInvalid
	}
	at, err := time.Parse(time.RFC3339, parts[1])
	if err != nil || !s.now().Before(at) {
		return nil, errEmailChangeInvalid
	}
	return &PendingEmailChange{UserID: parts[0], NewEmail: parts[2]}, nil
}

// ConfirmEmailChange makes the change the link was sent for: the user's
// email becomes the new address, the link is consumed, and user/updated
// is recorded, in one transaction. The link itself proves the new address
// is the user's, so no session is needed. An address another user took
// meanwhile is CodeDuplicate and leaves the link unused; a move out of or
// into a domain linked to single sign-on since is CodeForbidden.
func (s *Store) ConfirmEmailChange(ctx context.Context, token string) (*PendingEmailChange, error) {
	var out *PendingEmailChange
	err := s.write(ctx, func(tx *gorm.DB) error {
		p, err := s.emailChangeOf(tx, token)
		if err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", p.UserID).Take(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return errEmailChangeInvalid
			}
			return err
		}
		// A domain linked to single sign-on since the request decides too.
		if err := refuseSSOEmailMove(tx, u.Email, p.NewEmail); err != nil {
			return err
		}
		var taken int64
		if err := tx.Model(&User{}).Where("email = ? AND id <> ?", p.NewEmail, u.ID).Count(&taken).Error; err != nil {
			return err
		}
		if taken > 0 {
			return &Error{Code: CodeDuplicate, Message: "Another user already has the email " + p.NewEmail}
		}
		res := tx.Where("name = ?", emailChangeSettingName(token)).Delete(&Setting{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return errEmailChangeInvalid // used by a concurrent request
		}
		// A reset link mailed to the old address must not outlive it, nor
		// the change's cancel link.
		if err := endEmailChanges(tx, u.ID); err != nil {
			return err
		}
		if err := endResetLinks(tx, u.ID); err != nil {
			return err
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).
			Updates(map[string]any{"email": p.NewEmail, "updated_at": s.Now()}).Error; err != nil {
			return err
		}
		p.OldEmail = u.Email
		out = p
		u.Email = p.NewEmail
		return s.auditPersonal(tx, u.Actor(), u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"changed": []string{"email"}, "old_email": p.OldEmail, "new_email": p.NewEmail})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CancelEmailChange is the "this was not me" link of a change's notice:
// it ends the user's pending change (its confirmation link stops working)
// and is consumed, in one transaction with a user/updated audit event. An
// unknown, used or expired link is CodeNotFound.
func (s *Store) CancelEmailChange(ctx context.Context, token string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		userID, err := s.emailCancelUser(tx, token)
		if err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", userID).Take(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return errEmailCancelInvalid
			}
			return err
		}
		res := tx.Where("name = ?", emailCancelSettingName(token)).Delete(&Setting{})
		if res.Error != nil {
			return res.Error
		} else if res.RowsAffected != 1 {
			return errEmailCancelInvalid
		}
		if err := endEmailChanges(tx, u.ID); err != nil {
			return err
		}
		return s.auditPersonal(tx, u.Actor(), u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"email_change": "cancelled by link"})
	})
}

// CheckEmailCancelToken reports whether token is a live cancel link.
func (s *Store) CheckEmailCancelToken(ctx context.Context, token string) error {
	_, err := s.emailCancelUser(s.read(ctx), token)
	return err
}

func (s *Store) emailCancelUser(db *gorm.DB, token string) (string, error) {
	var row Setting
	err := db.Where("name = ?", emailCancelSettingName(token)).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", errEmailCancelInvalid
	} else if err != nil {
		return "", err
	}
	userID, expires, ok := strings.Cut(row.Value, " ")
	at, perr := time.Parse(time.RFC3339, expires)
	if !ok || perr != nil || !s.now().Before(at) {
		return "", errEmailCancelInvalid
	}
	return userID, nil
}

// passwordWasProof marks the session as just authenticated after the
// current password was checked; a user without one proved nothing new.
func (s *Store) passwordWasProof(tx *gorm.DB, actor Actor, u *User) error {
	if !u.HasPassword() {
		return nil
	}
	_, err := markAuthenticated(tx, actor, s.Now())
	return err
}

// refuseSSOEmailMove refuses a user's own change of address from
// oldEmail to newEmail in another domain when either domain is linked to
// single sign-on: out of it, the user would escape the organization's
// provider (and its policy); into it, they would join its control
// unasked. A change within one domain is allowed.
func refuseSSOEmailMove(tx *gorm.DB, oldEmail, newEmail string) error {
	if emailDomain(oldEmail) == emailDomain(newEmail) {
		return nil
	}
	for _, email := range []string{oldEmail, newEmail} {
		d, err := ssoDomainOf(tx, email)
		if err != nil {
			return err
		}
		if d != nil {
			return &Error{Code: CodeForbidden, Message: "Addresses at " + d.Domain + " sign in with single sign-on, so you cannot move your email into or out of it",
				Suggestion: "Ask an owner of the account that linked " + d.Domain + " (or the operator) to change it",
				Fields:     map[string]string{"new_email": "cannot move into or out of " + d.Domain + ", which signs in with single sign-on: ask an owner or the operator"}}
		}
	}
	return nil
}
