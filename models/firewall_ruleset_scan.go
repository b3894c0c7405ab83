package models

import (
	"database/sql"
	"time"

	"gorm.io/gorm"
)

// The ruleset list grew to most of a list request's CPU as rulesets
// accumulated under load (issue 24): GORM scanned each row by reflection
// and decoded its rules through its serializer. Rows are scanned here into
// the fields directly, and the rules decoded as GORM's JSON serializer
// decodes them (json.Unmarshal of a non-empty value; decodeRules), so
// that the views are the same.

// rulesetColumns are a ruleset's columns in the order scanRulesets reads
// them.
const rulesetColumns = "id, account_id, name, region_name, rules, created_at, updated_at, version"

// findRulesets runs q, which selects rulesetColumns, and scans every row.
func findRulesets(q *gorm.DB) ([]FirewallRuleset, error) {
	rows, err := q.Select(rulesetColumns).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FirewallRuleset
	var rules sql.RawBytes // valid until the next Scan: decoded at once
	for rows.Next() {
		var r FirewallRuleset
		if err := rows.Scan(&r.ID, &r.AccountID, &r.Name, &r.RegionName, &rules,
			&r.CreatedAt, &r.UpdatedAt, &r.Version); err != nil {
			return nil, err
		}
		if len(rules) > 0 {
			if r.Rules, err = decodeRules(rules); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// attachedInstances are the instances a ruleset's view lists.
type attachedInstances struct {
	ids []string
	// leaveAt is the earliest end of a listed instance's terminating, when
	// it leaves the list without any write; zero when none is terminating.
	leaveAt time.Time
}

// scanAttachedInstances runs q, which selects a ruleset's id, an
// instance's id, status and status_until, and groups the instances by
// ruleset in the order of the rows.
func scanAttachedInstances(q *gorm.DB) (map[string]attachedInstances, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]attachedInstances{}
	for rows.Next() {
		var rulesetID, instanceID, status string
		var until sql.NullTime
		if err := rows.Scan(&rulesetID, &instanceID, &status, &until); err != nil {
			return nil, err
		}
		a := out[rulesetID]
		a.ids = append(a.ids, instanceID)
		if status == InstanceTerminating && until.Valid && (a.leaveAt.IsZero() || until.Time.Before(a.leaveAt)) {
			a.leaveAt = until.Time
		}
		out[rulesetID] = a
	}
	return out, rows.Err()
}
