package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// MaxSessionOnce bounds a session's one-time value.
const MaxSessionOnce = 16 << 10

// SetSessionOnce keeps a value for the session's next page that shows it,
// once: the result of a form that redirects (post/redirect/get) and must
// not be shown twice, such as a generated private key. The caller seals
// it; the store keeps what it is given. Like the flash, it is a note to
// the user, not a change of state, and is not audited.
func (s *Store) SetSessionOnce(ctx context.Context, sessionID, value string) error {
	if len(value) > MaxSessionOnce {
		return Errorf(CodeInvalidParameters, "A one-time value holds at most %d bytes", MaxSessionOnce)
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&Session{}).Where("id = ?", sessionID).Update("once", value).Error
	})
}

// TakeSessionOnce returns the session's one-time value and forgets it in
// the same transaction, so two pages never both get it; "" when there is
// none.
func (s *Store) TakeSessionOnce(ctx context.Context, sessionID string) (string, error) {
	var value string
	err := s.write(ctx, func(tx *gorm.DB) error {
		var sess Session
		err := tx.Clauses(forUpdate).Select("id", "once").Where("id = ?", sessionID).Take(&sess).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil // signed out meanwhile: nothing to show
		}
		if err != nil {
			return err
		}
		if sess.Once == nil {
			return nil
		}
		value = *sess.Once
		return tx.Model(&Session{}).Where("id = ?", sessionID).Update("once", nil).Error
	})
	return value, err
}
