package models

import (
	"context"
	"crypto/subtle"
	"errors"
	"time"

	"gorm.io/gorm"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// InvitationsPerDay is how many invitation mails (new invitations and
// resends) one account may send in 24 hours, counted in the database so
// every replica agrees: the server must not be a way to spam.
const InvitationsPerDay = 50

// Invitation statuses. An invitation that is pending past ExpiresAt is
// expired; a resend or a newer invitation of the same email marks the
// old row replaced.
const (
	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationRevoked  = "revoked"
	InvitationReplaced = "replaced"
)

// Invitation asks Email to join an account with Role. Its link's token
// is the id followed by a secret of which only the SHA-256 is stored.
type Invitation struct {
	ID           string    `gorm:"primaryKey;size:32"`
	AccountID    string    `gorm:"size:32;not null;index:idx_invitations_account,priority:1"`
	Email        string    `gorm:"size:254;not null"`
	Role         string    `gorm:"size:16;not null"`
	SecretHash   string    `gorm:"size:64;not null"`
	InviterEmail string    `gorm:"size:254;not null"`
	Status       string    `gorm:"size:16;not null"`
	ExpiresAt    time.Time `gorm:"not null"`
	CreatedAt    time.Time `gorm:"not null;autoCreateTime:false;index:idx_invitations_account,priority:2"`
	UpdatedAt    time.Time `gorm:"not null;autoUpdateTime:false"`
}

// Expired reports whether a pending invitation's link no longer works at
// now.
func (inv *Invitation) Expired(now time.Time) bool { return !now.Before(inv.ExpiresAt) }

// IssuedInvitation is an invitation just created or resent with its
// link's token, which is never stored and cannot be read again: the
// CLI prints it, and without SMTP the dashboard shows it once.
type IssuedInvitation struct {
	Invitation
	Token string
}

// InviteInput is an owner inviting Email with Role. AccountID is read
// only for staff (the operator's CLI).
type InviteInput struct {
	AccountID string
	Email     string
	Role      string
}

// Validate checks the input and normalises the email.
func (in *InviteInput) Validate() error {
	var f FieldErrors
	in.Email = normalizeEmail(in.Email)
	validateEmail(&f, "email", in.Email)
	if err := validRole("role", in.Role); err != nil {
		f.Add("role", "must be owner, member or viewer")
	}
	return f.Err()
}

var (
	errInvitationInvalid = &Error{Code: CodeNotFound, Message: "This invitation link is not valid",
		Suggestion: "Check that the whole link was copied, or ask the account's owner for a new invitation"}
	errInvitationAccepted = &Error{Code: CodeNotFound, Message: "This invitation has already been accepted",
		Suggestion: "Sign in to use the account; an invitation link works once"}
	errInvitationRevoked = &Error{Code: CodeNotFound, Message: "This invitation was withdrawn or replaced by a newer one",
		Suggestion: "Use the most recent invitation mail, or ask the account's owner to invite you again"}
	errInvitationExpired = &Error{Code: CodeNotFound, Message: "This invitation has expired (links work for 7 days)",
		Suggestion: "Ask the account's owner to send it again"}
	errInvitationThrottled = &Error{Code: CodeRateLimited,
		Message:    "This account has sent 50 invitations in the last 24 hours, the most it may",
		Suggestion: "Try again tomorrow, or resend a pending invitation later"}
)

// IsInvitationGone reports whether err says an invitation link was
// valid once but is no longer: accepted, revoked, replaced or expired.
func IsInvitationGone(err error) bool {
	return errors.Is(err, errInvitationAccepted) || errors.Is(err, errInvitationRevoked) || errors.Is(err, errInvitationExpired)
}

// invitationAdmin is the account whose invitations the actor manages:
// staff name it, anyone else must own the account they act on.
func (a Actor) invitationAdmin(requested string) (string, error) { return a.memberAdmin(requested) }

// CreateInvitation invites an email to the actor's account with a role:
// owners (and staff) may. A member of the account is refused with
// CodeDuplicate; a pending invitation of the same email is replaced (its
// link dies). At most InvitationsPerDay per account (CodeRateLimited).
// The mail is queued and invitation/created recorded in one transaction.
func (s *Store) CreateInvitation(ctx context.Context, actor Actor, in InviteInput) (*IssuedInvitation, error) {
	accountID, err := actor.invitationAdmin(in.AccountID)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var out *IssuedInvitation
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := s.invitationAllowed(tx, accountID); err != nil {
			return err
		}
		var members int64
		err := tx.Table("memberships").Joins("JOIN users ON users.id = memberships.user_id").
			Where("memberships.account_id = ? AND users.email = ?", accountID, in.Email).Count(&members).Error
		if err != nil {
			return err
		}
		if members > 0 {
			return &Error{Code: CodeDuplicate, Message: in.Email + " is already a member of this account",
				Fields: map[string]string{"email": "is already a member of this account"}}
		}
		res := tx.Model(&Invitation{}).Where("account_id = ? AND email = ? AND status = ?", accountID, in.Email, InvitationPending).
			Updates(map[string]any{"status": InvitationReplaced, "updated_at": s.Now()})
		if res.Error != nil {
			return res.Error
		}
		if out, err = s.issueInvitation(tx, actor, accountID, in.Email, in.Role); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "invitation", "created", []string{lrn("invitation", out.ID)},
			map[string]any{"email": in.Email, "role": in.Role, "replaced_pending": res.RowsAffected})
	})
	if err != nil {
		return nil, err
	}
	s.wakeMail()
	return out, nil
}

// invitationAllowed locks the account (invitations of one account are
// made one at a time, so the count below counts concurrent ones) and
// refuses a 51st invitation mail in 24 hours.
func (s *Store) invitationAllowed(tx *gorm.DB, accountID string) error {
	if _, err := lockAccount(tx, accountID); err != nil {
		return err
	}
	var sent int64
	err := tx.Model(&Invitation{}).Where("account_id = ? AND created_at > ?", accountID, s.Now().Add(-24*time.Hour)).
		Count(&sent).Error
	if err != nil {
		return err
	}
	if sent >= InvitationsPerDay {
		return errInvitationThrottled
	}
	return nil
}

// issueInvitation inserts a pending invitation with a new secret and
// queues its mail in tx.
func (s *Store) issueInvitation(tx *gorm.DB, actor Actor, accountID, email, role string) (*IssuedInvitation, error) {
	now := s.Now()
	secret := randomHex(32)
	inviter := actor.Email
	if inviter == "" {
		inviter = "The operator" // the CLI acts as no member
	}
	inv := Invitation{ID: NewID(), AccountID: accountID, Email: email, Role: role, SecretHash: hashSecret(secret),
		InviterEmail: inviter, Status: InvitationPending, ExpiresAt: now.Add(InvitationTTL), CreatedAt: now, UpdatedAt: now}
	if err := tx.Create(&inv).Error; err != nil {
		return nil, err
	}
	owner, err := accountOwnerEmail(tx, accountID)
	if err != nil {
		return nil, err
	}
	token := inv.ID + secret
	err = s.enqueueMail(tx, MailInvitation, email, map[string]string{"token": token, "inviter": inviter,
		"account": owner, "role": role, "expires_in": "7 days"})
	if err != nil {
		return nil, err
	}
	return &IssuedInvitation{Invitation: inv, Token: token}, nil
}

// accountOwnerEmail names an account as people know it: by the email of
// its first owner, as the account switcher does.
func accountOwnerEmail(db *gorm.DB, accountID string) (string, error) {
	var emails []string
	err := db.Table("memberships").Joins("JOIN users ON users.id = memberships.user_id").
		Where("memberships.account_id = ? AND memberships.role = ?", accountID, RoleOwner).
		Order("memberships.created_at, users.email").Limit(1).Pluck("users.email", &emails).Error
	if err != nil || len(emails) == 0 {
		return "", err
	}
	return emails[0], nil
}

// ResendInvitation replaces a pending invitation with a new one (a new
// link: the old one stops working) and queues a new mail; it counts
// towards InvitationsPerDay. Owners (and staff) may. Records
// invitation/updated with "resent".
func (s *Store) ResendInvitation(ctx context.Context, actor Actor, accountID, id string) (*IssuedInvitation, error) {
	accountID, err := actor.invitationAdmin(accountID)
	if err != nil {
		return nil, err
	}
	var out *IssuedInvitation
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := s.invitationAllowed(tx, accountID); err != nil {
			return err
		}
		old, err := endPendingInvitation(tx, s.Now(), accountID, id, InvitationReplaced)
		if err != nil {
			return err
		}
		if out, err = s.issueInvitation(tx, actor, accountID, old.Email, old.Role); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "invitation", "resent", []string{lrn("invitation", out.ID)},
			map[string]any{"email": old.Email, "role": old.Role, "replaces": old.ID})
	})
	if err != nil {
		return nil, err
	}
	s.wakeMail()
	return out, nil
}

// RevokeInvitation withdraws a pending invitation: its link stops
// working. Owners (and staff) may. Records invitation/revoked.
func (s *Store) RevokeInvitation(ctx context.Context, actor Actor, accountID, id string) (*Invitation, error) {
	accountID, err := actor.invitationAdmin(accountID)
	if err != nil {
		return nil, err
	}
	var out *Invitation
	err = s.write(ctx, func(tx *gorm.DB) error {
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		inv, err := endPendingInvitation(tx, s.Now(), accountID, id, InvitationRevoked)
		if err != nil {
			return err
		}
		out = inv
		return s.audit(tx, actor, accountID, "invitation", "revoked", []string{lrn("invitation", inv.ID)},
			map[string]any{"email": inv.Email, "role": inv.Role})
	})
	return out, err
}

// endPendingInvitation moves the account's pending invitation id to
// status, or fails with CodeNotFound.
func endPendingInvitation(tx *gorm.DB, now time.Time, accountID, id, status string) (*Invitation, error) {
	var inv Invitation
	err := tx.Where("id = ? AND account_id = ? AND status = ?", id, accountID, InvitationPending).Take(&inv).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("invitation", id)
	} else if err != nil {
		return nil, err
	}
	inv.Status, inv.UpdatedAt = status, now
	// Only a row still pending moves: an accept that committed since the
	// read above keeps its status, and the owner is told the link is gone.
	res := tx.Model(&Invitation{}).Where("id = ? AND status = ?", id, InvitationPending).
		Updates(map[string]any{"status": status, "updated_at": now})
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected != 1 {
		return nil, NotFound("invitation", id)
	}
	return &inv, nil
}

// withdrawInvitationsBy revokes the account's pending invitations that m
// sent, once m is no longer an owner of it (removed, left or demoted): a
// link kept by a former owner must not bring them, or anyone, back in on
// their word. It returns how many it revoked.
func withdrawInvitationsBy(tx *gorm.DB, now time.Time, accountID string, m *Member) (int64, error) {
	if m.Role == RoleOwner {
		var still int64
		err := tx.Model(&Membership{}).Where("account_id = ? AND user_id = ? AND role = ?", accountID, m.UserID, RoleOwner).
			Count(&still).Error
		if err != nil || still > 0 {
			return 0, err
		}
	}
	res := tx.Model(&Invitation{}).
		Where("account_id = ? AND inviter_email = ? AND status = ?", accountID, m.Email, InvitationPending).
		Updates(map[string]any{"status": InvitationRevoked, "updated_at": now})
	return res.RowsAffected, res.Error
}

// Invitations lists the pending invitations of the actor's account
// (staff: of accountID), expired ones included so an owner sees them to
// resend, newest first. Owners and staff may.
func (s *Store) Invitations(ctx context.Context, actor Actor, accountID string) ([]Invitation, error) {
	accountID, err := actor.invitationAdmin(accountID)
	if err != nil {
		return nil, err
	}
	var out []Invitation
	err = s.read(ctx).Where("account_id = ? AND status = ?", accountID, InvitationPending).
		Order("created_at DESC, id").Find(&out).Error
	return out, err
}

// invitationByToken finds the invitation a link's token opens: the id
// selects the row, the secret's hash is compared in constant time. An
// unknown or malformed token is errInvitationInvalid; one no longer
// pending or expired, the matching "gone" error.
func (s *Store) invitationByToken(db *gorm.DB, token string) (*Invitation, error) {
	if len(token) != 96 || !isHex(token) {
		return nil, errInvitationInvalid
	}
	var inv Invitation
	err := db.Where("id = ?", token[:32]).Take(&inv).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errInvitationInvalid
	} else if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(token[32:])), []byte(inv.SecretHash)) != 1 {
		return nil, errInvitationInvalid
	}
	switch {
	case inv.Status == InvitationAccepted:
		return nil, errInvitationAccepted
	case inv.Status != InvitationPending:
		return nil, errInvitationRevoked
	case inv.Expired(s.now()):
		return nil, errInvitationExpired
	}
	return &inv, nil
}

func isHex(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
