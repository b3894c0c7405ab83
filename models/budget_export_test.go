package models

import (
	"context"

	"gorm.io/gorm"
)

// SendBudgetAlert sends a in a transaction of its own, as a replica whose
// read found it unsent does, and reports whether this call sent it.
func (s *Store) SendBudgetAlert(ctx context.Context, a BudgetAlert) (sent bool, err error) {
	err = s.write(ctx, func(tx *gorm.DB) error {
		a.ID = NewID()
		sent, err = s.sendBudgetAlert(tx, a)
		return err
	})
	return sent, err
}
