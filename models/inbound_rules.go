package models

import (
	"context"

	"gorm.io/gorm"
)

// ReplaceInboundRulesInput is an account's new list of inbound firewall
// rules, replacing the old one whole.
type ReplaceInboundRulesInput struct {
	// Rules is required; nil means it was left out. The API's field is
	// "data", so errors are keyed "data.<index>.<field>".
	Rules []FirewallRule `json:"data"`
}

// Validate checks every rule and puts source networks in CIDR form.
func (in *ReplaceInboundRulesInput) Validate() error {
	var f FieldErrors
	in.Rules = requireRules(&f, "data", in.Rules)
	return f.Err()
}

// InboundFirewallRules returns the actor's account's inbound rules.
func (s *Store) InboundFirewallRules(ctx context.Context, actor Actor) ([]FirewallRule, error) {
	a, err := s.actorAccount(ctx, actor)
	if err != nil {
		return nil, err
	}
	return a.InboundRules, nil
}

// ReplaceInboundFirewallRules replaces the actor's account's inbound rules
// and records a "firewall_rules updated" audit event with the new list.
func (s *Store) ReplaceInboundFirewallRules(ctx context.Context, actor Actor, in ReplaceInboundRulesInput) ([]FirewallRule, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := updateAccountColumn(tx, accountID, "inbound_rules", Account{InboundRules: in.Rules, UpdatedAt: s.Now()}); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "firewall_rules", "updated", []string{lrn("firewall_rules", accountID)},
			map[string]any{"rules": in.Rules})
	})
	if err != nil {
		return nil, err
	}
	return in.Rules, nil
}
