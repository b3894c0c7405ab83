package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// sessionActor is u acting on the account a session chose (nil: their
// default account), with their role there. Support staff act on no
// account; so does a customer who belongs to none (every account page
// then answers CodeForbidden). A chosen account u is no longer a member of
// is ErrNoSession: removal ends the sessions on that account.
func sessionActor(db *gorm.DB, u *User, chosen *string) (Actor, error) {
	if u.Role == RoleSupport {
		return Actor{UserID: u.ID, Email: u.Email, Role: RoleSupport}, nil
	}
	if chosen != nil {
		a, err := memberActor(db, u, *chosen)
		if ErrorCode(err) == CodeNotFound {
			return Actor{}, ErrNoSession
		}
		return a, err
	}
	accountID, err := defaultAccount(db, u)
	if err != nil || accountID == "" {
		return Actor{UserID: u.ID, Email: u.Email}, err
	}
	return memberActor(db, u, accountID)
}

// defaultAccount is the account a session acts on until one is chosen: the
// one created with the user while they are a member of it, else their
// oldest membership; "" when they belong to none.
func defaultAccount(db *gorm.DB, u *User) (string, error) {
	var ids []string
	err := db.Model(&Membership{}).Where("user_id = ?", u.ID).Order("created_at, account_id").Pluck("account_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", err
	}
	for _, id := range ids {
		if u.AccountID != nil && id == *u.AccountID {
			return id, nil
		}
	}
	return ids[0], nil
}

// SwitchAccount makes the session act on accountID, which the actor must
// be a member of (else CodeNotFound, the same for accounts that do not
// exist). It is a choice of view, not a change of the account: no audit
// event.
func (s *Store) SwitchAccount(ctx context.Context, actor Actor, accountID string) error {
	if actor.SessionID == "" || actor.UserID == "" {
		return Errorf(CodeForbidden, "Only a dashboard session chooses an account")
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		if _, err := membership(tx, accountID, actor.UserID); err != nil {
			if ErrorCode(err) == CodeNotFound {
				return NotFound("account", accountID)
			}
			return err
		}
		res := tx.Model(&Session{}).Where("id = ? AND user_id = ?", actor.SessionID, actor.UserID).Update("account_id", accountID)
		if res.Error == nil && res.RowsAffected == 0 {
			return errors.New("switch account: the session is gone")
		}
		return res.Error
	})
}
