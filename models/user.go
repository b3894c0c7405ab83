package models

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// User statuses, as the API's User object names them.
const (
	UserActive      = "active"
	UserDeactivated = "deactivated"
)

// User signs in to the dashboard and owns API keys. Owners belong to one
// account; support staff belong to none and work across accounts.
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

// Actor returns the user acting in the dashboard.
func (u *User) Actor() Actor {
	a := Actor{UserID: u.ID, Email: u.Email, Role: u.Role}
	if u.AccountID != nil {
		a.AccountID = *u.AccountID
	}
	return a
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
	if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email {
		f.Add("email", "must be a valid email address")
	}
	validatePassword(&f, "password", in.Password)
	if in.Role == "" {
		in.Role = RoleOwner
	}
	if in.Role != RoleOwner && in.Role != RoleSupport {
		f.Add("role", "must be owner or support")
	}
	return f.Err()
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
// (CLI) or the first-run setup.
func (s *Store) CreateUser(ctx context.Context, actor Actor, in CreateUserInput) (*User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), s.cfg.PasswordCost)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	u := &User{ID: NewID(), Email: in.Email, PasswordHash: string(hash), Role: in.Role, Status: UserActive, CreatedAt: now, UpdatedAt: now}
	err = s.write(ctx, func(tx *gorm.DB) error {
		accountID := ""
		if in.Role == RoleOwner {
			a := Account{
				ID: NewID(), Status: AccountActive, BillingAddressValid: true,
				FilesystemQuota: s.cfg.DefaultFilesystemQuota, RulesetQuota: s.cfg.DefaultRulesetQuota,
				InboundRules: []FirewallRule{DefaultInboundRule()}, GlobalRules: []FirewallRule{},
				CreatedAt: now, UpdatedAt: now,
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
		return s.audit(tx, actor, accountID, "user", "created", []string{lrn("user", u.ID)},
			map[string]any{"email": u.Email, "role": u.Role})
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// UserByEmail finds a user by email (case-insensitive).
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	return userByEmail(s.read(ctx), email)
}

func userByEmail(db *gorm.DB, email string) (*User, error) {
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

// CheckPassword reports whether pw is the user's password, in time that
// does not depend on whether it matched.
func (u *User) CheckPassword(pw string) bool {
	return bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(pw)) == nil
}
