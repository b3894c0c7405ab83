package models

import (
	"context"

	"gorm.io/gorm"
)

// RuleList is one of an account's two lists of rules kept on its row
// (the inbound rules, the global ruleset's), with the version behind its
// ETag.
type RuleList struct {
	Rules   []FirewallRule
	Version int64
}

// ruleListColumns names a rule list's columns on the accounts row.
type ruleListColumns struct{ rules, version string }

var (
	inboundRulesColumns = ruleListColumns{rules: "inbound_rules", version: "inbound_rules_version"}
	globalRulesColumns  = ruleListColumns{rules: "global_rules", version: "global_rules_version"}
)

// writeRuleList replaces a rule list of the account, taken from values,
// and adds one to its version, if pre holds; it returns the new version.
// The version is bumped first, in an UPDATE whose WHERE carries pre: on
// PostgreSQL a concurrent writer waits on the row lock and then finds the
// version moved on, so of two writers with one ETag exactly one wins.
func writeRuleList(tx *gorm.DB, accountID string, cols ruleListColumns, values Account, pre Precondition) (int64, error) {
	res := pre.where(tx.Model(&Account{}).Where("id = ?", accountID), cols.version).
		UpdateColumn(cols.version, gorm.Expr(cols.version+" + 1"))
	if res.Error != nil {
		return 0, res.Error
	}
	if res.RowsAffected == 0 {
		if pre.Set() {
			return 0, errPreconditionFailed
		}
		return 0, NotFound("account", accountID)
	}
	if err := updateAccountColumn(tx, accountID, cols.rules, values); err != nil {
		return 0, err
	}
	var version int64
	err := tx.Model(&Account{}).Where("id = ?", accountID).Pluck(cols.version, &version).Error
	return version, err
}

// ruleList reads a rule list of the actor's account.
func (s *Store) ruleList(ctx context.Context, actor Actor, cols ruleListColumns) (RuleList, error) {
	a, err := s.actorAccount(ctx, actor)
	if err != nil {
		return RuleList{}, err
	}
	if cols == globalRulesColumns {
		return RuleList{Rules: a.GlobalRules, Version: a.GlobalRulesVersion}, nil
	}
	return RuleList{Rules: a.InboundRules, Version: a.InboundRulesVersion}, nil
}
