package models

import "context"

// AccountOverview is what an owner's dashboard home shows about their
// account: its state and how much of each resource it holds. A resource
// gets its count here when its pages are added.
type AccountOverview struct {
	Account     Account
	APIKeys     int64
	SSHKeys     int64
	Instances   int64 // booting, active or unhealthy
	Filesystems int64
	Rulesets    int64

	FabricPartitions int64

	// For the first-run checklist: instances in any state, terminated
	// ones included, and webhook endpoints.
	InstancesEver    int64
	WebhookEndpoints int64
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
	a, err := s.actorAccount(ctx, actor)
	if err != nil {
		return nil, err
	}
	return s.countResources(ctx, a)
}

// AccountOverviewForSupport is AccountOverview of the account with the
// id, for support staff beside its quotas (others get CodeForbidden); an
// unknown id is CodeNotFound.
func (s *Store) AccountOverviewForSupport(ctx context.Context, actor Actor, id string) (*AccountOverview, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff see other accounts")
	}
	if !IsID(id) {
		return nil, NotFound("account", id)
	}
	a, err := s.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.countResources(ctx, a)
}

// countResources counts what the account holds.
func (s *Store) countResources(ctx context.Context, a *Account) (*AccountOverview, error) {
	o := &AccountOverview{Account: *a}
	counts := []struct {
		n     *int64
		model any
		where string
		args  []any
	}{
		{&o.APIKeys, &APIKey{}, "revoked_at IS NULL", nil},
		{&o.SSHKeys, &SSHKey{}, "", nil},
		// A booting instance whose boot has ended is active: running either way.
		{&o.Instances, &Instance{}, "status IN ?", []any{instanceInUseStatuses}},
		{&o.Filesystems, &Filesystem{}, "", nil},
		{&o.Rulesets, &FirewallRuleset{}, "", nil},
		{&o.FabricPartitions, &FabricPartition{}, "", nil},
		{&o.InstancesEver, &Instance{}, "", nil},
		{&o.WebhookEndpoints, &WebhookEndpoint{}, "", nil},
	}
	for _, c := range counts {
		q := s.read(ctx).Model(c.model).Where("account_id = ?", a.ID)
		if c.where != "" {
			q = q.Where(c.where, c.args...)
		}
		if err := q.Count(c.n).Error; err != nil {
			return nil, err
		}
	}
	return o, nil
}
