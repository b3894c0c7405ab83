package models

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// setupTokenSetting holds the SHA-256 of the first-run setup token.
const setupTokenSetting = "setup_token"

var errSetupInvalid = &Error{Code: CodeNotFound, Message: "This setup link is invalid or has already been used",
	Suggestion: "Sign in, or restart the server to print a new link if nobody has signed up yet"}

// StartSetup prepares the first-run setup while no user exists: it returns
// a new random token for the setup link, replacing any earlier one. Once a
// user exists it returns "" and no link is needed.
func (s *Store) StartSetup(ctx context.Context) (string, error) {
	token := randomHex(32)
	err := s.write(ctx, func(tx *gorm.DB) error {
		var users int64
		if err := tx.Model(&User{}).Count(&users).Error; err != nil {
			return err
		}
		if users > 0 {
			token = ""
			return nil
		}
		// An upsert, not a delete and an insert: replicas starting
		// together on PostgreSQL each deleted nothing, then all but one
		// failed to insert and the process exited.
		return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}},
			DoUpdates: clause.AssignmentColumns([]string{"value"})}).
			Create(&Setting{Name: setupTokenSetting, Value: hashSecret(token)}).Error
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// CheckSetupToken reports whether token opens the first-run setup: it is
// the latest one StartSetup returned and no user exists yet. Otherwise it
// fails with CodeNotFound.
func (s *Store) CheckSetupToken(ctx context.Context, token string) error {
	var n int64
	err := s.read(ctx).Model(&Setting{}).
		Where("name = ? AND value = ? AND NOT EXISTS (SELECT 1 FROM users)", setupTokenSetting, hashSecret(token)).
		Count(&n).Error
	if err != nil {
		return err
	}
	if n == 0 {
		return errSetupInvalid
	}
	return nil
}

// SetupInput is the first owner's choice of email and password, with the
// setup link's token.
type SetupInput struct {
	Token           string
	Email           string
	Password        string
	PasswordConfirm string
	SourceIP        string
}

// Validate checks the email and password as CreateUserInput does, and
// that the password was typed the same twice.
func (in *SetupInput) Validate() error {
	var f FieldErrors
	in.Email = normalizeEmail(in.Email)
	validateEmail(&f, "email", in.Email)
	validatePassword(&f, "password", in.Password)
	if in.PasswordConfirm != in.Password {
		f.Add("password_confirm", "does not match the password")
	}
	return f.Err()
}

// CompleteSetup creates the first owner (with their account) and signs
// them in, in one transaction that also consumes the token: the link works
// once. It records user/created and session/signed_in, both by the new
// owner. An invalid or used token, or any existing user, fails with
// CodeNotFound; invalid input leaves the token usable. The token and the
// input are checked before the password is hashed, so a visitor without
// the link costs one query, not a bcrypt hash.
func (s *Store) CompleteSetup(ctx context.Context, in SetupInput) (*Session, string, error) {
	if err := s.CheckSetupToken(ctx, in.Token); err != nil {
		return nil, "", err
	}
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	u, err := s.newUser(ctx, &CreateUserInput{Email: in.Email, Password: in.Password, Role: RoleOwner})
	if err != nil {
		return nil, "", err
	}
	var sess *Session
	var token string
	err = s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Where("name = ? AND value = ? AND NOT EXISTS (SELECT 1 FROM users)", setupTokenSetting, hashSecret(in.Token)).
			Delete(&Setting{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return errSetupInvalid
		}
		if err := s.insertUser(tx, Actor{UserID: u.ID, Email: u.Email, Role: u.Role}, u); err != nil {
			return err
		}
		sess, token, err = s.startSession(tx, u, in.SourceIP)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return sess, token, nil
}
