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
	// IfMatch is the version the caller read (If-Match), if any.
	IfMatch Precondition `json:"-"`
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
func (s *Store) GlobalFirewallRules(ctx context.Context, actor Actor) (RuleList, error) {
	return s.ruleList(ctx, actor, globalRulesColumns)
}

// UpdateGlobalFirewallRuleset replaces the rules of the actor's account's
// global ruleset and records a "global_firewall_ruleset updated" audit
// event. Without rules there is nothing to change and nothing is recorded.
// It fails with CodePreconditionFailed, changing nothing, when in.IfMatch
// does not hold.
func (s *Store) UpdateGlobalFirewallRuleset(ctx context.Context, actor Actor, in UpdateGlobalRulesetInput) (RuleList, error) {
	accountID, err := actor.operates()
	if err != nil {
		return RuleList{}, err
	}
	if err := in.Validate(); err != nil {
		return RuleList{}, err
	}
	if in.Rules == nil {
		l, err := s.GlobalFirewallRules(ctx, actor)
		if err == nil && !in.IfMatch.holds(l.Version) {
			return RuleList{}, errPreconditionFailed
		}
		return l, err
	}
	out := RuleList{Rules: *in.Rules}
	err = s.write(ctx, func(tx *gorm.DB) error {
		version, err := writeRuleList(tx, accountID, globalRulesColumns,
			Account{GlobalRules: *in.Rules, UpdatedAt: s.Now()}, in.IfMatch)
		if err != nil {
			return err
		}
		out.Version = version
		return s.audit(tx, actor, accountID, "global_firewall_ruleset", "updated",
			[]string{lrn("global_firewall_ruleset", accountID)}, map[string]any{"rules": *in.Rules})
	})
	if err != nil {
		return RuleList{}, err
	}
	return out, nil
}
