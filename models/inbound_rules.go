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
	// IfMatch is the version the caller read (If-Match), if any.
	IfMatch Precondition `json:"-"`
}

// Validate checks every rule and puts source networks in CIDR form.
func (in *ReplaceInboundRulesInput) Validate() error {
	var f FieldErrors
	in.Rules = requireRules(&f, "data", in.Rules)
	return f.Err()
}

// InboundFirewallRules returns the actor's account's inbound rules.
func (s *Store) InboundFirewallRules(ctx context.Context, actor Actor) (RuleList, error) {
	return s.ruleList(ctx, actor, inboundRulesColumns)
}

// ReplaceInboundFirewallRules replaces the actor's account's inbound rules
// and records a "firewall_rules updated" audit event with the new list. It
// fails with CodePreconditionFailed, changing nothing, when in.IfMatch
// does not hold.
func (s *Store) ReplaceInboundFirewallRules(ctx context.Context, actor Actor, in ReplaceInboundRulesInput) (RuleList, error) {
	accountID, err := actor.operates()
	if err != nil {
		return RuleList{}, err
	}
	if err := in.Validate(); err != nil {
		return RuleList{}, err
	}
	out := RuleList{Rules: in.Rules}
	err = s.write(ctx, func(tx *gorm.DB) error {
		version, err := writeRuleList(tx, accountID, inboundRulesColumns,
			Account{InboundRules: in.Rules, UpdatedAt: s.Now()}, in.IfMatch)
		if err != nil {
			return err
		}
		out.Version = version
		return s.audit(tx, actor, accountID, "firewall_rules", "updated", []string{lrn("firewall_rules", accountID)},
			map[string]any{"rules": in.Rules})
	})
	if err != nil {
		return RuleList{}, err
	}
	return out, nil
}
