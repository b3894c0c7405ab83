package models

import (
	"context"
	"strings"

	"gorm.io/gorm"
)

// setupTokenSetting holds the SHA-256 of each first-run setup token a
// server printed, separated by spaces, the newest last: replicas starting
// together each print a link, and each link opens setup (with one hash,
// only the link stored last did). One row still serializes setup on
// PostgreSQL: whoever deletes it first creates the first owner.
const setupTokenSetting = "setup_token"

// maxSetupLinks is how many of the newest setup links work at once.
const maxSetupLinks = 16

// setupTokenMatches is a condition on the setting's row, true when its
// hashes include the one given (a LIKE pattern from setupTokenPattern).
const setupTokenMatches = "name = ? AND (' ' || value || ' ') LIKE ? AND NOT EXISTS (SELECT 1 FROM users)"

// setupTokenPattern finds token's hash among the setting's; the hash is
// hexadecimal, so it holds no wildcard.
func setupTokenPattern(token string) string { return "% " + hashSecret(token) + " %" }

var errSetupInvalid = &Error{Code: CodeNotFound, Message: "This setup link is invalid or has already been used",
	Suggestion: "Sign in, or restart the server to print a new link if nobody has signed up yet"}

// StartSetup prepares the first-run setup while no user exists: it returns
// a new random token for the setup link. The links printed before it keep
// working, up to maxSetupLinks of them, until the first owner is created.
// Once a user exists it returns "" and no link is needed.
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
		// Appended in one upsert, which holds the row: replicas starting
		// together on PostgreSQL neither fail to insert nor overwrite
		// each other's hash.
		if err := tx.Exec("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) "+
			"DO UPDATE SET value = settings.value || ' ' || excluded.value", setupTokenSetting, hashSecret(token)).Error; err != nil {
			return err
		}
		var hashes string
		if err := tx.Raw("SELECT value FROM settings WHERE name = ?", setupTokenSetting).Scan(&hashes).Error; err != nil {
			return err
		}
		if kept := strings.Fields(hashes); len(kept) > maxSetupLinks {
			return tx.Exec("UPDATE settings SET value = ? WHERE name = ?",
				strings.Join(kept[len(kept)-maxSetupLinks:], " "), setupTokenSetting).Error
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// CheckSetupToken reports whether token opens the first-run setup: it is
// one of the latest maxSetupLinks that StartSetup returned and no user
// exists yet. Otherwise it fails with CodeNotFound.
func (s *Store) CheckSetupToken(ctx context.Context, token string) error {
	var n int64
	err := s.read(ctx).Model(&Setting{}).
		Where(setupTokenMatches, setupTokenSetting, setupTokenPattern(token)).Count(&n).Error
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
	UserAgent       string
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
	u, err := s.newUser(ctx, inTurn, &CreateUserInput{Email: in.Email, Password: in.Password, Role: RoleOwner})
	if err != nil {
		return nil, "", err
	}
	return s.startSession(ctx, SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodLink}, func(tx *gorm.DB) (*User, error) {
		// Deleting the row consumes every link.
		res := tx.Where(setupTokenMatches, setupTokenSetting, setupTokenPattern(in.Token)).Delete(&Setting{})
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected != 1 {
			return nil, errSetupInvalid
		}
		return u, s.insertUser(tx, Actor{UserID: u.ID, Email: u.Email, Role: u.Role}, u)
	})
}
