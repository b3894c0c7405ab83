package models

import (
	"context"
	"time"
)

// FirewallRulesets lists the actor's account's rulesets, oldest first. It
// costs one indexed read of the account's version while the list is
// cached and unchanged (accountCache), and two queries otherwise, whatever
// the number of rulesets. The list and everything in it are the caller's.
func (s *Store) FirewallRulesets(ctx context.Context, actor Actor) ([]FirewallRulesetView, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	list, err := s.rulesets.list(ctx, s, accountID, func() ([]FirewallRulesetView, error) {
		return s.loadFirewallRulesets(ctx, accountID)
	})
	if err != nil {
		return nil, err
	}
	unshareRulesetViews(list)
	return list, nil
}

// FirewallRulesetsEncoded is FirewallRulesets encoded by enc, for the
// API's list: the list is encoded once per change of the account's objects
// (or end of an instance's terminating), and the bytes are shared with
// every caller, who must not modify them.
func (s *Store) FirewallRulesetsEncoded(ctx context.Context, actor Actor, enc *ListEncoding[FirewallRulesetView]) ([]byte, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.rulesets.encoded(ctx, s, accountID, func() ([]FirewallRulesetView, error) {
		return s.loadFirewallRulesets(ctx, accountID)
	}, enc)
}

// loadFirewallRulesets reads the account's rulesets from the database, in
// two queries.
func (s *Store) loadFirewallRulesets(ctx context.Context, accountID string) ([]FirewallRulesetView, error) {
	db := s.read(ctx)
	rulesets, err := findRulesets(db.Table("firewall_rulesets").Where("account_id = ?", accountID).Order("created_at, id"))
	if err != nil {
		return nil, err
	}
	instances, err := s.rulesetInstances(db, accountID, "")
	if err != nil {
		return nil, err
	}
	out := make([]FirewallRulesetView, len(rulesets))
	for i, r := range rulesets {
		out[i] = newRulesetView(r, instances[r.ID])
	}
	return out, nil
}

// rulesetListExpiry is when a loaded list stops being true with no write:
// when the first instance it lists as terminating ends, and leaves it
// (rulesetInstances compares status_until with the clock).
func rulesetListExpiry(list []FirewallRulesetView) time.Time {
	var first time.Time
	for i := range list {
		if at := list[i].leaveAt; !at.IsZero() && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
}

// unshareRulesetViews gives a copy of a cached list slices of its own,
// so that a caller changing a rule or an id changes no other read.
func unshareRulesetViews(list []FirewallRulesetView) {
	var nRules, nPorts, nIDs int
	for i := range list {
		nRules += len(list[i].Rules)
		nIDs += len(list[i].InstanceIDs)
		for _, r := range list[i].Rules {
			nPorts += len(r.PortRange)
		}
	}
	rules, ports, ids := make([]FirewallRule, 0, nRules), make([]int, 0, nPorts), make([]string, 0, nIDs)
	for i := range list {
		v := &list[i]
		if v.Rules != nil {
			start := len(rules)
			rules = append(rules, v.Rules...)
			v.Rules = rules[start:len(rules):len(rules)]
			for j := range v.Rules {
				if pr := v.Rules[j].PortRange; pr != nil {
					start := len(ports)
					ports = append(ports, pr...)
					v.Rules[j].PortRange = ports[start:len(ports):len(ports)]
				}
			}
		}
		start := len(ids)
		ids = append(ids, v.InstanceIDs...)
		v.InstanceIDs = ids[start:len(ids):len(ids)]
	}
}
