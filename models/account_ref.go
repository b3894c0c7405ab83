package models

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// AccountID returns the id of the account ref names: an account id, or
// the email of the account's owner (any case) when that user owns exactly
// one account. Only staff look accounts up across the service (others get
// CodeForbidden); a ref that names no account, or several, is
// CodeInvalidParameters on the field "account", since it comes from a
// filter someone typed.
func (s *Store) AccountID(ctx context.Context, actor Actor, ref string) (string, error) {
	if !actor.isStaff() {
		return "", Errorf(CodeForbidden, "Only support staff look up other accounts")
	}
	return accountByRef(s.read(ctx), "account", ref)
}

// accountByRef resolves an account reference staff or the operator typed
// (field names it in errors): an account id, or the email of a user who
// owns exactly one account now, read from the memberships. users.account_id,
// the account created with the user, is no guide: they may have left it,
// or own others. An email owning several accounts is refused with their
// ids, so nobody changes one team while meaning another.
func accountByRef(db *gorm.DB, field, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if msg := textProblem(ref, false); msg != "" {
		return "", InvalidField(field, msg)
	}
	noAccount := InvalidField(field, "does not match any account; give an account ID or the email of its owner")
	if IsID(ref) {
		var n int64
		if err := db.Model(&Account{}).Where("id = ?", ref).Count(&n).Error; err != nil {
			return "", err
		}
		if n == 0 {
			return "", noAccount
		}
		return ref, nil
	}
	var ids []string
	err := db.Model(&Membership{}).Joins("JOIN users ON users.id = memberships.user_id").
		Where("users.email = ? AND memberships.role = ?", normalizeEmail(ref), RoleOwner).
		Order("memberships.account_id").Pluck("memberships.account_id", &ids).Error
	switch {
	case err != nil:
		return "", err
	case len(ids) == 0:
		return "", noAccount
	case len(ids) > 1:
		return "", InvalidField(field, fmt.Sprintf("%s owns %d accounts (%s); give the account ID", normalizeEmail(ref), len(ids), strings.Join(ids, ", ")))
	}
	return ids[0], nil
}
