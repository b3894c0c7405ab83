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
func (in EmailChangeInput) Validate() error {
	var f FieldErrors
	validateEmail(&f, "new_email", in.NewEmail)
	if in.CurrentPassword == "" {
		f.Add("current_password", "is required")
	}
	return f.Err()
}

// RequestEmailChange checks the actor's password and queues a
// confirmation link (valid EmailChangeTTL) to the new address and a
// notice to the current one, replacing any earlier pending change, in one
// transaction with a user/updated audit event. Nothing changes until the
// link is opened (ConfirmEmailChange). Signed-in users only; a wrong
// password is a field error on current_password.
func (s *Store) RequestEmailChange(ctx context.Context, actor Actor, in EmailChangeInput) error {
	if actor.UserID == "" {
		return Errorf(CodeForbidden, "Only a signed-in user can change their email")
	}
	if err := in.Validate(); err != nil {
		return err
	}
	u, err := s.User(ctx, actor.UserID)
	if err != nil {
		return err
	}
	newEmail := normalizeEmail(in.NewEmail)
	if newEmail == u.Email {
		return InvalidField("new_email", "is already your email")
	}
	if ok, err := s.passwordMatches(ctx, actor.passwordPriority(), []byte(u.PasswordHash), in.CurrentPassword); err != nil {
		return err
	} else if !ok {
		return InvalidField("current_password", "is incorrect")
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("name LIKE ? AND value LIKE ?", emailChangePrefix+"%", u.ID+" %").
			Delete(&Setting{}).Error; err != nil {
			return err
		}
		token := randomHex(32)
		expires := s.Now().Add(EmailChangeTTL).UTC().Format(time.RFC3339)
		row := Setting{Name: emailChangeSettingName(token), Value: u.ID + " " + expires + " " + newEmail}
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		if err := s.enqueueMail(tx, MailEmailChangeConfirm, newEmail,
			map[string]string{"token": token, "old_email": u.Email, "new_email": newEmail}); err != nil {
			return err
		}
		if err := s.enqueueMail(tx, MailEmailChangeNotice, u.Email,
			map[string]string{"old_email": u.Email, "new_email": newEmail}); err != nil {
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
// meanwhile is CodeDuplicate and leaves the link unused.
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
