package models

import (
	"context"

	"gorm.io/gorm"
)

// The global ruleset is one per account, applies in every region, and is
// addressed by a fixed id instead of a generated one.
const (
	GlobalRulesetID   = "global"
	GlobalRulesetName = "Global Firewall Rules"
)

// UpdateGlobalRulesetInput changes the global ruleset; a nil Rules leaves
// the rules as they are.
type UpdateGlobalRulesetInput struct {
	Rules *[]FirewallRule `json:"rules"`
}

// Validate checks the rules, when given.
func (in *UpdateGlobalRulesetInput) Validate() error {
	var f FieldErrors
	if in.Rules != nil {
		rules := normalizeRules(&f, "rules", *in.Rules)
		in.Rules = &rules
	}
	return f.Err()
}

// GlobalFirewallRules returns the rules of the actor's account's global
// ruleset.
func (s *Store) GlobalFirewallRules(ctx context.Context, actor Actor) ([]FirewallRule, error) {
	a, err := s.actorAccount(ctx, actor)
	if err != nil {
		return nil, err
	}
	return a.GlobalRules, nil
}

// UpdateGlobalFirewallRuleset replaces the rules of the actor's account's
// global ruleset and records a "global_firewall_ruleset updated" audit
// event. Without rules there is nothing to change and nothing is recorded.
func (s *Store) UpdateGlobalFirewallRuleset(ctx context.Context, actor Actor, in UpdateGlobalRulesetInput) ([]FirewallRule, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if in.Rules == nil {
		return s.GlobalFirewallRules(ctx, actor)
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := updateAccountColumn(tx, accountID, "global_rules", Account{GlobalRules: *in.Rules, UpdatedAt: s.Now()}); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "global_firewall_ruleset", "updated",
			[]string{lrn("global_firewall_ruleset", accountID)}, map[string]any{"rules": *in.Rules})
	})
	if err != nil {
		return nil, err
	}
	return *in.Rules, nil
}
