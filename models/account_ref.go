package models

import (
	"context"
	"strings"
)

// AccountID returns the id of the account ref names: an account id, or
// the email of the account's owner (any case). Only staff look accounts
// up across the service (others get CodeForbidden); a ref that names no
// account is CodeInvalidParameters on the field "account", since it comes
// from a filter someone typed.
func (s *Store) AccountID(ctx context.Context, actor Actor, ref string) (string, error) {
	if !actor.isStaff() {
		return "", Errorf(CodeForbidden, "Only support staff look up other accounts")
	}
	ref = strings.TrimSpace(ref)
	if msg := textProblem(ref, false); msg != "" {
		return "", InvalidField("account", msg)
	}
	noAccount := InvalidField("account", "does not match any account; give an account ID or the email of its owner")
	if IsID(ref) {
		var n int64
		if err := s.read(ctx).Model(&Account{}).Where("id = ?", ref).Count(&n).Error; err != nil {
			return "", err
		}
		if n == 0 {
			return "", noAccount
		}
		return ref, nil
	}
	u, err := userByEmail(s.read(ctx), ref)
	switch {
	case ErrorCode(err) == CodeNotFound:
		return "", noAccount
	case err != nil:
		return "", err
	case u.AccountID == nil: // support staff have no account
		return "", noAccount
	}
	return *u.AccountID, nil
}
