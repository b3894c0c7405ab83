package models

import (
	"context"

	"gorm.io/gorm"
)

// InvitationInfo is what the page of an invitation link shows: who is
// invited, to which account (named by its first owner's email), with
// which role, and whether the invited email already has a user (who
// signs in) or not (who chooses a password).
type InvitationInfo struct {
	Email, Role, InviterEmail, AccountOwnerEmail string
	UserExists                                   bool
}

// CheckInvitation reports what token invites to. An unknown token fails
// with CodeNotFound; an accepted, revoked, replaced or expired one with
// an error IsInvitationGone recognises. It changes nothing.
func (s *Store) CheckInvitation(ctx context.Context, token string) (*InvitationInfo, error) {
	db := s.read(ctx)
	inv, err := s.invitationByToken(db, token)
	if err != nil {
		return nil, err
	}
	owner, err := accountOwnerEmail(db, inv.AccountID)
	if err != nil {
		return nil, err
	}
	var users int64
	if err := db.Model(&User{}).Where("email = ?", inv.Email).Count(&users).Error; err != nil {
		return nil, err
	}
	return &InvitationInfo{Email: inv.Email, Role: inv.Role, InviterEmail: inv.InviterEmail,
		AccountOwnerEmail: owner, UserExists: users > 0}, nil
}

// AcceptInvitation makes the signed-in user (actor) a member of the
// invitation's account with its role. The user's email must be the
// invited one (CodeForbidden otherwise: the link proves that address,
// not another). The link is consumed, the membership written
// (member/created) and invitation/accepted recorded in one transaction;
// of any number of concurrent accepts exactly one succeeds, the others
// see the link accepted. Returns the account joined.
func (s *Store) AcceptInvitation(ctx context.Context, actor Actor, token string) (*Invitation, error) {
	if actor.UserID == "" {
		return nil, Errorf(CodeForbidden, "Sign in to accept an invitation")
	}
	var out *Invitation
	err := s.write(ctx, func(tx *gorm.DB) error {
		inv, err := s.consumeInvitation(tx, token)
		if err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", actor.UserID).Take(&u).Error; err != nil {
			return err
		}
		if u.Email != inv.Email {
			return Errorf(CodeForbidden, "This invitation is for %s, and you are signed in as %s", inv.Email, u.Email)
		}
		out = inv
		return s.joinByInvitation(tx, &u, inv)
	})
	if err != nil {
		return nil, err
	}
	s.keys.forgetAccount(out.AccountID)
	return out, nil
}

// InvitationSignupInput is a new person accepting an invitation: the
// password they choose. Their email is the invited one, proved by the
// link.
type InvitationSignupInput struct {
	Token           string
	Password        string
	PasswordConfirm string
	SourceIP        string
	UserAgent       string
}

// Validate checks the password and its confirmation.
func (in InvitationSignupInput) Validate() error {
	var f FieldErrors
	validatePassword(&f, "password", in.Password)
	if in.PasswordConfirm != in.Password {
		f.Add("password_confirm", "does not match the password")
	}
	return f.Err()
}

// AcceptInvitationAsNewUser creates a user with the invited email and
// the chosen password, with no account of their own, makes them a member
// of the invitation's account and signs them in, in one transaction
// (user/created, member/created, invitation/accepted, session/signed_in).
// An email that already has a user is CodeConflict: they sign in and
// accept instead. Invalid input leaves the link usable.
func (s *Store) AcceptInvitationAsNewUser(ctx context.Context, in InvitationSignupInput) (*Session, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	// The link is checked before the (costly) hash, and again, consumed,
	// in the transaction.
	inv, err := s.invitationByToken(s.read(ctx), in.Token)
	if err != nil {
		return nil, "", err
	}
	u, err := s.newUser(ctx, inTurn, &CreateUserInput{Email: inv.Email, Password: in.Password})
	if err != nil {
		return nil, "", err
	}
	return s.startSession(ctx, SessionOrigin{SourceIP: in.SourceIP, UserAgent: in.UserAgent, Method: MethodLink}, func(tx *gorm.DB) (*User, error) {
		inv, err := s.consumeInvitation(tx, in.Token)
		if err != nil {
			return nil, err
		}
		var users int64
		if err := tx.Model(&User{}).Where("email = ?", inv.Email).Count(&users).Error; err != nil {
			return nil, err
		}
		if users > 0 {
			return nil, &Error{Code: CodeConflict, Message: inv.Email + " already has a user",
				Suggestion: "Sign in as " + inv.Email + ", then open the invitation link again"}
		}
		joiner := Actor{UserID: u.ID, Email: u.Email, Role: inv.Role, AccountID: inv.AccountID}
		if err := s.insertInvitedUser(tx, joiner, u); err != nil {
			return nil, err
		}
		return u, s.joinByInvitation(tx, u, inv)
	})
}

// consumeInvitation checks token and marks its invitation accepted, in
// tx. The update only takes a row still pending, so of concurrent
// accepts (serialised by the row's lock) one consumes it and the others
// find it accepted.
func (s *Store) consumeInvitation(tx *gorm.DB, token string) (*Invitation, error) {
	inv, err := s.invitationByToken(tx, token)
	if err != nil {
		return nil, err
	}
	res := tx.Model(&Invitation{}).Where("id = ? AND status = ?", inv.ID, InvitationPending).
		Updates(map[string]any{"status": InvitationAccepted, "updated_at": s.Now()})
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected != 1 {
		return nil, errInvitationAccepted // accepted by a concurrent request
	}
	return inv, nil
}

// joinByInvitation adds u to the invitation's account and records
// invitation/accepted, the joining member acting.
func (s *Store) joinByInvitation(tx *gorm.DB, u *User, inv *Invitation) error {
	joiner := Actor{UserID: u.ID, Email: u.Email, Role: inv.Role, AccountID: inv.AccountID}
	if _, err := s.addMember(tx, joiner, inv.AccountID, u.ID, inv.Role); err != nil {
		return err
	}
	return s.audit(tx, joiner, inv.AccountID, "invitation", "accepted", []string{lrn("invitation", inv.ID), lrn("user", u.ID)},
		map[string]any{"email": u.Email, "role": inv.Role, "invited_by": inv.InviterEmail})
}
