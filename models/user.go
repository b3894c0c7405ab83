package models

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// User statuses, as the API's User object names them.
const (
	UserActive      = "active"
	UserDeactivated = "deactivated"
)

// User signs in to the dashboard and owns API keys. A customer (Role
// owner) belongs to accounts through memberships, AccountID being the
// account created with them, if any; support staff belong to none and
// work across accounts.
type User struct {
	ID           string  `gorm:"primaryKey;size:32"`
	AccountID    *string `gorm:"size:32;index"`
	Email        string  `gorm:"size:254;not null;uniqueIndex"`
	PasswordHash string  `gorm:"size:100;not null"`
	Role         string  `gorm:"size:16;not null"`
	Status       string  `gorm:"size:16;not null"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Actor returns the user acting as the owner of the account created with
// them (tests, tools, the operator's `users` commands). Sessions and API
// keys act with the role of a membership, read at each request.
func (u *User) Actor() Actor {
	a := Actor{UserID: u.ID, Email: u.Email, Role: u.Role}
	if u.AccountID != nil {
		a.AccountID = *u.AccountID
	}
	return a
}

// auditPersonal records an event about a user's own person, not about an
// account: a password changed or reset, an email changed, a sign-in or
// sign-out. It goes to the platform's log (no account; support staff
// read it), with the user, or the staff member or operator who acted on
// them, as actor, and no account role. Such an event belongs to no team:
// the account created with the user may be one they left, and the one a
// session happens to act on is a choice of the moment; either's members
// must not read the user's new email or address, nor see them labelled
// with a role (users.role says "owner" whatever they hold). It is the one
// way personal events are recorded.
func (s *Store) auditPersonal(tx *gorm.DB, actor Actor, userID, resource, action string, resourceLRNs []string, details map[string]any) error {
	if !actor.isStaff() {
		if actor.UserID == "" {
			actor.UserID = userID
		}
		actor = Actor{UserID: actor.UserID, Email: actor.Email, APIKeyID: actor.APIKeyID, SessionID: actor.SessionID}
	}
	return s.audit(tx, actor, "", resource, action, resourceLRNs, details)
}

// CreateUserInput is a new user. Role defaults to owner.
type CreateUserInput struct {
	Email    string
	Password string
	Role     string
}

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// Validate checks the input and normalises the email to lower case.
func (in *CreateUserInput) Validate() error {
	var f FieldErrors
	in.Email = normalizeEmail(in.Email)
	validateEmail(&f, "email", in.Email)
	validatePassword(&f, "password", in.Password)
	if in.Role == "" {
		in.Role = RoleOwner
	}
	if in.Role != RoleOwner && in.Role != RoleSupport {
		f.Add("role", "must be owner or support")
	}
	return f.Err()
}

func validateEmail(f *FieldErrors, field, email string) {
	if !checkLine(f, field, email) {
		return
	}
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email {
		f.Add(field, "must be a valid email address")
	}
}

func validatePassword(f *FieldErrors, field, pw string) {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength {
		f.Add(field, "must be at least 10 characters")
	} else if len(pw) > 72 {
		f.Add(field, "must be at most 72 bytes") // bcrypt reads no further
	}
}

func normalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// CreateUser adds a user. An owner gets a new account of their own:
// active, with a valid billing address, the default quotas, an empty
// global ruleset and the default inbound rule. The actor is the operator
// (CLI); the first-run setup goes through CompleteSetup.
func (s *Store) CreateUser(ctx context.Context, actor Actor, in CreateUserInput) (*User, error) {
	u, err := s.newUser(ctx, actor.passwordPriority(), &in)
	if err != nil {
		return nil, err
	}
	if err := s.write(ctx, func(tx *gorm.DB) error { return s.insertUser(tx, actor, u) }); err != nil {
		return nil, err
	}
	return u, nil
}

// newUser validates the input and builds the user with its password hash,
// outside any transaction: bcrypt is slow on purpose.
func (s *Store) newUser(ctx context.Context, prio passwordPriority, in *CreateUserInput) (*User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	hash, err := s.hashPassword(ctx, prio, in.Password)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	return &User{ID: NewID(), Email: in.Email, PasswordHash: hash, Role: in.Role, Status: UserActive,
		CreatedAt: now, UpdatedAt: now}, nil
}

// insertUser writes u (and, for an owner, a new account) with its audit
// event inside tx.
func (s *Store) insertUser(tx *gorm.DB, actor Actor, u *User) error {
	accountID := ""
	if u.Role == RoleOwner {
		a := Account{
			ID: NewID(), Status: AccountActive, BillingAddressValid: true,
			FilesystemQuota: s.cfg.DefaultFilesystemQuota, RulesetQuota: s.cfg.DefaultRulesetQuota,
			InboundRules: []FirewallRule{DefaultInboundRule()}, GlobalRules: []FirewallRule{},
			CreatedAt: u.CreatedAt, UpdatedAt: u.CreatedAt,

			FabricPartitionQuota: s.cfg.DefaultFabricPartitionQuota,
		}
		if err := tx.Create(&a).Error; err != nil {
			return err
		}
		accountID = a.ID
		u.AccountID = &a.ID
	}
	if err := tx.Create(u).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return InvalidField("email", "is already registered")
		}
		return err
	}
	if accountID != "" {
		// The user/created event records the account's first owner.
		m := Membership{AccountID: accountID, UserID: u.ID, Role: RoleOwner, CreatedAt: u.CreatedAt, UpdatedAt: u.CreatedAt}
		if err := tx.Create(&m).Error; err != nil {
			return err
		}
	}
	return s.audit(tx, actor, accountID, "user", "created", []string{lrn("user", u.ID)},
		map[string]any{"email": u.Email, "role": u.Role})
}

// insertInvitedUser writes u, a customer who accepted an invitation,
// inside tx: with no account of their own (the invitation's is theirs
// once they join it). user/created is recorded in the account they join,
// by actor, the joining member.
func (s *Store) insertInvitedUser(tx *gorm.DB, actor Actor, u *User) error {
	u.AccountID = nil
	if err := tx.Create(u).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return InvalidField("email", "is already registered")
		}
		return err
	}
	return s.audit(tx, actor, actor.AccountID, "user", "created", []string{lrn("user", u.ID)},
		map[string]any{"email": u.Email, "role": u.Role, "invited": true})
}

// UserByEmail finds a user by email (case-insensitive).
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	return userByEmail(s.read(ctx), email)
}

func userByEmail(db *gorm.DB, email string) (*User, error) {
	if textProblem(email, false) != "" {
		// No stored address breaks the text rule, and PostgreSQL would
		// refuse the query rather than find nothing.
		return nil, Errorf(CodeNotFound, "No user with email %q", email)
	}
	var u User
	err := db.Where("email = ?", normalizeEmail(email)).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, Errorf(CodeNotFound, "No user with email %q", normalizeEmail(email))
	}
	return &u, err
}

// User returns a user by id.
func (s *Store) User(ctx context.Context, id string) (*User, error) {
	var u User
	err := s.read(ctx).Where("id = ?", id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("user", id)
	}
	return &u, err
}

// UserCount is how many users exist (the dashboard's first-run check).
func (s *Store) UserCount(ctx context.Context) (int64, error) {
	var n int64
	err := s.read(ctx).Model(&User{}).Count(&n).Error
	return n, err
}

// ChangePasswordInput is a signed-in user's new password. The new one is
// typed twice, so a typo does not lock the user out.
type ChangePasswordInput struct {
	CurrentPassword    string
	NewPassword        string
	NewPasswordConfirm string
}

// Validate checks the new password; the current one is checked against
// the stored hash by ChangePassword.
func (in ChangePasswordInput) Validate() error {
	var f FieldErrors
	if in.CurrentPassword == "" {
		f.Add("current_password", "is required")
	}
	validatePassword(&f, "new_password", in.NewPassword)
	if in.NewPasswordConfirm != in.NewPassword {
		f.Add("new_password_confirm", "does not match the new password")
	}
	return f.Err()
}

// ChangePassword replaces the acting user's password after checking the
// current one, and ends the user's other sessions and half-finished
// sign-ins: whoever knew the old password is signed out. Records
// user/updated with the count of sessions ended. A wrong current password
// is a field error on current_password.
func (s *Store) ChangePassword(ctx context.Context, actor Actor, in ChangePasswordInput) error {
	if actor.UserID == "" {
		return Errorf(CodeForbidden, "Only a signed-in user can change their password")
	}
	if err := in.Validate(); err != nil {
		return err
	}
	u, err := s.User(ctx, actor.UserID)
	if err != nil {
		return err
	}
	if ok, err := s.passwordMatches(ctx, actor.passwordPriority(), []byte(u.PasswordHash), in.CurrentPassword); err != nil {
		return err
	} else if !ok {
		return InvalidField("current_password", "is incorrect")
	}
	hash, err := s.hashPassword(ctx, actor.passwordPriority(), in.NewPassword)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		err := tx.Model(&User{}).Where("id = ?", u.ID).
			Updates(map[string]any{"password_hash": hash, "updated_at": s.Now()}).Error
		if err != nil {
			return err
		}
		ended, err := endSignIns(tx, u.ID, actor.SessionID)
		if err != nil {
			return err
		}
		// A pending email change may be a thief's, made with the old password.
		if err := endEmailChanges(tx, u.ID); err != nil {
			return err
		}
		// The current password just checked is a proof of identity.
		if _, err := markAuthenticated(tx, actor, s.Now()); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"changed": []string{"password"}, "sessions_ended": ended})
	})
}
