package models

import (
	"context"
	"errors"
	"slices"
	"time"

	"gorm.io/gorm"
)

// Membership makes a user a member of an account with a role: owner,
// member or viewer (MemberRoles). A user may belong to several accounts;
// support staff belong to none.
type Membership struct {
	AccountID string    `gorm:"primaryKey;size:32"`
	UserID    string    `gorm:"primaryKey;size:32;index"`
	Role      string    `gorm:"size:16;not null"`
	CreatedAt time.Time `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null"`
}

// Member is a membership with the member's email, as the Members page and
// `cloudplane members list` show it.
type Member struct {
	Membership
	Email string
}

// MemberAccount is one account a user belongs to, as the dashboard's
// account switcher lists it: named by the email of its first owner.
type MemberAccount struct {
	AccountID  string
	Role       string
	OwnerEmail string
}

// validRole checks role is one of MemberRoles, as a field error.
func validRole(field, role string) error {
	if !slices.Contains(MemberRoles, role) {
		return InvalidField(field, "must be owner, member or viewer")
	}
	return nil
}

// Members lists the members of the actor's account (staff: of accountID,
// which is ignored for anyone else), owners first, then by email. Every
// member may read it.
func (s *Store) Members(ctx context.Context, actor Actor, accountID string) ([]Member, error) {
	accountID, err := actor.scope(accountID)
	if err != nil {
		return nil, err
	}
	if accountID == "" {
		return nil, InvalidField("account", "is required")
	}
	return members(s.read(ctx), accountID)
}

func members(db *gorm.DB, accountID string) ([]Member, error) {
	var out []Member
	err := db.Table("memberships").Select("memberships.*, users.email").
		Joins("JOIN users ON users.id = memberships.user_id").
		Where("memberships.account_id = ?", accountID).
		Order("CASE memberships.role WHEN 'owner' THEN 0 WHEN 'member' THEN 1 ELSE 2 END, users.email").
		Scan(&out).Error
	return out, err
}

// MemberAccounts lists the accounts userID belongs to, with their role,
// in a stable order (the account created with the user first).
func (s *Store) MemberAccounts(ctx context.Context, userID string) ([]MemberAccount, error) {
	var out []MemberAccount
	err := s.read(ctx).Table("memberships m").
		Select("m.account_id, m.role, (SELECT min(u.email) FROM memberships o JOIN users u ON u.id = o.user_id "+
			"WHERE o.account_id = m.account_id AND o.role = 'owner') AS owner_email").
		Joins("JOIN users me ON me.id = m.user_id").
		Where("m.user_id = ?", userID).
		Order("CASE WHEN me.account_id = m.account_id THEN 0 ELSE 1 END, m.created_at, m.account_id").
		Scan(&out).Error
	return out, err
}

// membership reads userID's membership of accountID, or CodeNotFound.
func membership(db *gorm.DB, accountID, userID string) (*Membership, error) {
	var m Membership
	err := db.Where("account_id = ? AND user_id = ?", accountID, userID).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("member", userID)
	}
	return &m, err
}

// memberActor is u acting in accountID with their membership's role, or
// CodeNotFound when u is not a member of it.
func memberActor(db *gorm.DB, u *User, accountID string) (Actor, error) {
	m, err := membership(db, accountID, u.ID)
	if err != nil {
		return Actor{}, err
	}
	return Actor{UserID: u.ID, Email: u.Email, Role: m.Role, AccountID: accountID}, nil
}

// MemberActorByEmail is the user with email acting in the account whose
// owner has ownerEmail (the CLI's --account), with their role there. It
// fails with CodeNotFound when either is unknown or the user is not a
// member of that account.
func (s *Store) MemberActorByEmail(ctx context.Context, ownerEmail, email string) (Actor, error) {
	accountID, err := s.AccountIDByOwnerEmail(ctx, ownerEmail)
	if err != nil {
		return Actor{}, err
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return Actor{}, err
	}
	return memberActor(s.read(ctx), u, accountID)
}

// AccountIDByOwnerEmail finds the account the CLI's --account names: an
// account id, or the email of a user who owns exactly that one account
// now (several are refused, listing their ids; see accountByRef).
func (s *Store) AccountIDByOwnerEmail(ctx context.Context, ref string) (string, error) {
	return accountByRef(s.read(ctx), "account", ref)
}

// MemberActorEmails maps the users who caused any of events as owners,
// members or viewers to their emails, so the account's log names the
// member who acted. Any member of the account may read it; staff get the
// support staff's too (SupportActorEmails).
func (s *Store) MemberActorEmails(ctx context.Context, actor Actor, events []AuditEvent) (map[string]string, error) {
	roles := MemberRoles
	if actor.isStaff() {
		roles = append([]string{RoleSupport}, MemberRoles...)
	}
	return s.actorEmails(ctx, events, roles)
}
