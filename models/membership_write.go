package models

import (
	"context"
	"errors"
	"strings"

	"gorm.io/gorm"
)

// MemberInput names a member of an account and, for SetMemberRole, their
// new role. Member is a user id or an email. AccountID is read only for
// staff (support, the operator's CLI); everyone else acts on the account
// they act in.
type MemberInput struct {
	AccountID string
	Member    string
	Role      string
}

// errLastOwner refuses to leave an account without an owner.
var errLastOwner = &Error{Code: CodeConflict,
	Message:    "An account always keeps at least one owner: this is its last owner",
	Suggestion: "Make another member an owner first"}

// IsLastOwner reports whether err is the refusal to remove, demote or let
// go the last owner of an account.
func IsLastOwner(err error) bool { return errors.Is(err, errLastOwner) }

// memberAdmin returns the account whose members the actor manages: staff
// name it, anyone else must own the one they act on.
func (a Actor) memberAdmin(requested string) (string, error) {
	if a.isStaff() {
		if requested == "" {
			return "", InvalidField("account", "is required")
		}
		return requested, nil
	}
	return a.manages()
}

// errNotOwnerNow refuses a member change by an actor who was an owner
// when their request was authenticated but is not any more.
func errNotOwnerNow(role string) *Error {
	return insufficientRole(role, "manage this account's members, webhooks and keys", RoleOwner)
}

// ownerNow checks, inside tx and after the account is locked, that the
// actor still owns accountID: the role an actor carries was read when
// their request was authenticated, and an owner demoted or removed while
// the request waited for the lock must not change members (nor promote
// themselves back). Staff need no membership.
func ownerNow(tx *gorm.DB, actor Actor, accountID string) error {
	if actor.isStaff() {
		return nil
	}
	var roles []string
	if err := tx.Model(&Membership{}).Where("account_id = ? AND user_id = ?", accountID, actor.UserID).
		Pluck("role", &roles).Error; err != nil {
		return err
	}
	if len(roles) != 1 || roles[0] != RoleOwner {
		role := ""
		if len(roles) == 1 {
			role = roles[0]
		}
		return errNotOwnerNow(role)
	}
	return nil
}

// AddMember makes userID a member of accountID with role inside tx, with a
// member/created audit event by actor, and (unless they added themselves)
// a notification for the new member: the caller calls s.wakeMail after
// the commit. Only an owner of accountID (checked again under the
// account's lock) or staff may: no one else can add anyone, let alone an
// owner. An accepted invitation, whose checks were the inviting owner's,
// comes in through addMember. An existing member is CodeDuplicate.
func (s *Store) AddMember(tx *gorm.DB, actor Actor, accountID, userID, role string) (*Membership, error) {
	if !actor.isStaff() {
		owned, err := actor.manages()
		if err != nil {
			return nil, err
		}
		if owned != accountID {
			return nil, NotFound("account", accountID)
		}
	}
	if _, err := lockAccount(tx, accountID); err != nil {
		return nil, err
	}
	if err := ownerNow(tx, actor, accountID); err != nil {
		return nil, err
	}
	return s.addMember(tx, actor, accountID, userID, role)
}

// addMember is AddMember without the role check, for the invitation's own
// path: the invitation names the account and role an owner chose, and
// accepting it (consumed once, in tx) is the permission.
func (s *Store) addMember(tx *gorm.DB, actor Actor, accountID, userID, role string) (*Membership, error) {
	if err := validRole("role", role); err != nil {
		return nil, err
	}
	var u User
	if err := tx.Select("id", "email", "role").Where("id = ?", userID).Take(&u).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, NotFound("user", userID)
		}
		return nil, err
	}
	if u.Role == RoleSupport {
		return nil, Errorf(CodeForbidden, "Support staff stay outside accounts")
	}
	now := s.Now()
	m := &Membership{AccountID: accountID, UserID: userID, Role: role, CreatedAt: now, UpdatedAt: now}
	if err := tx.Create(m).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return nil, Errorf(CodeDuplicate, "%s is already a member of this account", u.Email)
		}
		return nil, err
	}
	if actor.UserID != userID { // one who joins by their own hand needs no mail about it
		if err := s.notifyMembership(tx, userID, accountID, MembershipAdded, role); err != nil {
			return nil, err
		}
	}
	return m, s.audit(tx, actor, accountID, "member", "created", []string{lrn("user", userID)},
		map[string]any{"email": u.Email, "role": role})
}

// SetMemberRole changes a member's role. Owners (and staff) may; the last
// owner cannot be demoted, even by two owners demoting each other at once:
// the account row is locked and its owners counted in the transaction
// that writes. Records member/updated; the member's API keys act with the
// new role on every replica within credentialsCheckInterval, their
// sessions at their next request.
func (s *Store) SetMemberRole(ctx context.Context, actor Actor, in MemberInput) (*Member, error) {
	accountID, err := actor.memberAdmin(in.AccountID)
	if err != nil {
		return nil, err
	}
	if err := validRole("role", in.Role); err != nil {
		return nil, err
	}
	var out *Member
	err = s.write(ctx, func(tx *gorm.DB) error {
		m, err := lockMember(tx, accountID, in.Member)
		if err != nil {
			return err
		}
		if err := ownerNow(tx, actor, accountID); err != nil {
			return err
		}
		out = m
		if m.Role == in.Role {
			return nil
		}
		if m.Role == RoleOwner {
			if err := keepAnOwner(tx, accountID); err != nil {
				return err
			}
		}
		previous := m.Role
		m.Role, m.UpdatedAt = in.Role, s.Now()
		err = tx.Model(&Membership{}).Where("account_id = ? AND user_id = ?", accountID, m.UserID).
			Updates(map[string]any{"role": m.Role, "updated_at": m.UpdatedAt}).Error
		if err != nil {
			return err
		}
		if err := bumpCredentials(tx); err != nil {
			return err
		}
		if err := s.notifyMembership(tx, m.UserID, accountID, MembershipRoleChanged, m.Role); err != nil {
			return err
		}
		if _, err := withdrawInvitationsBy(tx, s.Now(), accountID, m); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "member", "updated", []string{lrn("user", m.UserID)},
			map[string]any{"email": m.Email, "role": m.Role, "previous_role": previous})
	})
	if err != nil {
		return nil, err
	}
	s.keys.forgetAccount(accountID)
	s.wakeMail()
	return out, nil
}

// RemoveMember takes a member out of the account: owners (and staff) may,
// not of its last owner. The member's API keys of the account are revoked
// and their sessions on it ended, on every replica within
// credentialsCheckInterval. Records member/deleted.
func (s *Store) RemoveMember(ctx context.Context, actor Actor, in MemberInput) (*Member, error) {
	accountID, err := actor.memberAdmin(in.AccountID)
	if err != nil {
		return nil, err
	}
	return s.dropMember(ctx, actor, accountID, in.Member, false)
}

// LeaveAccount takes the actor out of the account they act in, unless they
// are its last owner; any member may. As RemoveMember, their keys of the
// account are revoked and their sessions on it ended (this one too).
// Records member/deleted with "left".
func (s *Store) LeaveAccount(ctx context.Context, actor Actor) (*Member, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.dropMember(ctx, actor, accountID, actor.UserID, true)
}

func (s *Store) dropMember(ctx context.Context, actor Actor, accountID, member string, left bool) (*Member, error) {
	var out *Member
	err := s.write(ctx, func(tx *gorm.DB) error {
		m, err := lockMember(tx, accountID, member)
		if err != nil {
			return err
		}
		if !left { // anyone may leave; removing another takes an owner, now
			if err := ownerNow(tx, actor, accountID); err != nil {
				return err
			}
		}
		out = m
		if m.Role == RoleOwner {
			if err := keepAnOwner(tx, accountID); err != nil {
				return err
			}
		}
		if err := tx.Where("account_id = ? AND user_id = ?", accountID, m.UserID).Delete(&Membership{}).Error; err != nil {
			return err
		}
		revoked := tx.Model(&APIKey{}).Where("account_id = ? AND user_id = ? AND revoked_at IS NULL", accountID, m.UserID).
			Update("revoked_at", s.Now())
		if revoked.Error != nil {
			return revoked.Error
		}
		// Sessions on the account end; a session that had chosen none
		// falls back to another membership at its next request, as does
		// the one a member leaves from.
		if left && actor.SessionID != "" {
			if err := tx.Model(&Session{}).Where("id = ?", actor.SessionID).Update("account_id", nil).Error; err != nil {
				return err
			}
		}
		if err := tx.Where("user_id = ? AND account_id = ?", m.UserID, accountID).Delete(&Session{}).Error; err != nil {
			return err
		}
		if err := bumpCredentials(tx); err != nil {
			return err
		}
		withdrawn, err := withdrawInvitationsBy(tx, s.Now(), accountID, m)
		if err != nil {
			return err
		}
		details := map[string]any{"email": m.Email, "role": m.Role, "revoked_api_keys": revoked.RowsAffected}
		if withdrawn > 0 {
			details["revoked_invitations"] = withdrawn
		}
		if left {
			details["left"] = true
		}
		return s.audit(tx, actor, accountID, "member", "deleted", []string{lrn("user", m.UserID)}, details)
	})
	if err != nil {
		return nil, err
	}
	s.keys.forgetAccount(accountID)
	return out, nil
}

// lockMember locks the account (so that changes of its members are made
// one at a time) and reads the member, by user id or email.
func lockMember(tx *gorm.DB, accountID, member string) (*Member, error) {
	if _, err := lockAccount(tx, accountID); err != nil {
		return nil, err
	}
	member = strings.TrimSpace(member)
	col := "users.id"
	if strings.Contains(member, "@") {
		col, member = "users.email", normalizeEmail(member)
	}
	if textProblem(member, false) != "" || member == "" {
		return nil, NotFound("member", member)
	}
	var m Member
	err := tx.Table("memberships").Select("memberships.*, users.email").
		Joins("JOIN users ON users.id = memberships.user_id").
		Where("memberships.account_id = ? AND "+col+" = ?", accountID, member).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("member", member)
	}
	return &m, err
}

// keepAnOwner fails with errLastOwner unless the locked account has
// another owner than the one about to go.
func keepAnOwner(tx *gorm.DB, accountID string) error {
	var owners int64
	err := tx.Model(&Membership{}).Where("account_id = ? AND role = ?", accountID, RoleOwner).Count(&owners).Error
	if err != nil {
		return err
	}
	if owners <= 1 {
		return errLastOwner
	}
	return nil
}

// AddMemberNow is AddMember in a write transaction of its own, for a user
// who needs no invitation (the operator's tools, tests).
func (s *Store) AddMemberNow(ctx context.Context, actor Actor, accountID, userID, role string) (*Membership, error) {
	var m *Membership
	err := s.write(ctx, func(tx *gorm.DB) (err error) {
		m, err = s.AddMember(tx, actor, accountID, userID, role)
		return err
	})
	if err == nil {
		s.wakeMail()
	}
	return m, err
}
