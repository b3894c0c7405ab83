package models

import (
	"context"

	"gorm.io/gorm"
)

// NotifyMembership runs notifyMembership in a transaction of its own, as
// the members operations will in theirs.
func (s *Store) NotifyMembership(ctx context.Context, userID, accountID, what, role string) error {
	err := s.write(ctx, func(tx *gorm.DB) error { return s.notifyMembership(tx, userID, accountID, what, role) })
	if err == nil {
		s.wakeMail()
	}
	return err
}

// SetSweepLimit makes the notification sweep's pages n long.
func (s *Store) SetSweepLimit(n int) { s.sweepLimit = n }
