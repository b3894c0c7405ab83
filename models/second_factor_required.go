package models

import (
	"context"

	"gorm.io/gorm"
)

// SetRequireSecondFactor is an account owner requiring a second factor of
// every member of the account, or no longer requiring it. Members without
// one are led to enrol at their next sign-in; their sessions go on.
// Records account/second_factor_required (with on or off).
func (s *Store) SetRequireSecondFactor(ctx context.Context, actor Actor, on bool) error {
	if !actor.Owns() {
		return Errorf(CodeForbidden, "Only an owner of the account can require two-factor authentication")
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&Account{}).Where("id = ? AND require_second_factor <> ?", actor.AccountID, on).
			UpdateColumns(map[string]any{"require_second_factor": on, "updated_at": s.Now()})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error // unchanged: nothing to record
		}
		return s.audit(tx, actor, actor.AccountID, "account", "second_factor_required", []string{lrn("account", actor.AccountID)},
			map[string]any{"require_second_factor": on})
	})
}
