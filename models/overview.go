package models

import "context"

// AccountOverview is what an owner's dashboard home shows about their
// account: its state and how much of each resource it holds. A resource
// gets its count here when its pages are added.
type AccountOverview struct {
	Account     Account
	APIKeys     int64
	Filesystems int64
	Rulesets    int64
}

// quotaNearShare is the share of a quota from which the dashboard warns.
const quotaNearShare = 0.8

// NearQuota reports whether used is close enough to quota to warn about
// (80% or more; a zero quota is always reached).
func NearQuota(used int64, quota int) bool {
	return float64(used) >= quotaNearShare*float64(quota)
}

// AccountOverview counts the resources of the actor's account. Support
// staff have no account and get CodeForbidden.
func (s *Store) AccountOverview(ctx context.Context, actor Actor) (*AccountOverview, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	a, err := s.Account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	o := &AccountOverview{Account: *a}
	counts := []struct {
		model any
		where string
		n     *int64
	}{
		{&APIKey{}, "account_id = ? AND revoked_at IS NULL", &o.APIKeys},
		{&Filesystem{}, "account_id = ?", &o.Filesystems},
		{&FirewallRuleset{}, "account_id = ?", &o.Rulesets},
	}
	for _, c := range counts {
		if err := s.read(ctx).Model(c.model).Where(c.where, accountID).Count(c.n).Error; err != nil {
			return nil, err
		}
	}
	return o, nil
}
