package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// FirewallRuleset is a named list of inbound rules in one region that
// instances can be launched with. Keyed by account, then id (migration
// 0035), so an account's are stored together.
type FirewallRuleset struct {
	AccountID  string         `gorm:"primaryKey;size:32;not null"`
	ID         string         `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_firewall_rulesets_id"`
	Name       string         `gorm:"size:64;not null"`
	RegionName string         `gorm:"size:32;not null"`
	Rules      []FirewallRule `gorm:"serializer:json;not null"`
	CreatedAt  time.Time      `gorm:"not null"`
	UpdatedAt  time.Time      `gorm:"not null"`
	// Version, behind the ETag, adds one on every change.
	Version int64 `gorm:"not null;default:1"`
}

// Region is the catalogue entry of the ruleset's region.
func (r *FirewallRuleset) Region() Region { reg, _ := LookupRegion(r.RegionName); return reg }

// FirewallRulesetView is a ruleset with the ids of the instances it is
// attached to, oldest first. Terminated instances are left out (a
// terminating one whose time is up counts as terminated): they no longer
// use it, and listing them would grow the list forever.
type FirewallRulesetView struct {
	FirewallRuleset
	InstanceIDs []string
	// leaveAt is when the first of InstanceIDs leaves the list, its
	// terminating over; zero when none is terminating (rulesetListExpiry).
	leaveAt time.Time
}

// MaxRulesetName is the longest ruleset name.
const MaxRulesetName = 64

// CreateFirewallRulesetInput is a new ruleset.
type CreateFirewallRulesetInput struct {
	Name   string `json:"name"`
	Region string `json:"region"`
	// Rules is required; nil means it was left out, empty means no rules.
	Rules []FirewallRule `json:"rules"`
}

// Validate checks the input, trims the name and puts source networks in
// CIDR form. Rulesets cannot be made where firewall rules do not apply.
func (in *CreateFirewallRulesetInput) Validate() error {
	var f FieldErrors
	in.Name = validateRulesetName(&f, in.Name)
	validateRegion(&f, "region", in.Region)
	if in.Region == RegionNoFirewall {
		f.Add("region", fmt.Sprintf("firewall rules do not apply in %s, so rulesets cannot be created there", RegionNoFirewall))
	}
	in.Rules = requireRules(&f, "rules", in.Rules)
	return f.Err()
}

// UpdateFirewallRulesetInput changes a ruleset; nil fields stay as they are.
type UpdateFirewallRulesetInput struct {
	Name  *string         `json:"name"`
	Rules *[]FirewallRule `json:"rules"`
	// IfMatch is the version the caller read (If-Match), if any.
	IfMatch Precondition `json:"-"`
}

// Validate checks the fields that are given.
func (in *UpdateFirewallRulesetInput) Validate() error {
	var f FieldErrors
	if in.Name != nil {
		name := validateRulesetName(&f, *in.Name)
		in.Name = &name
	}
	if in.Rules != nil {
		rules := normalizeRules(&f, "rules", *in.Rules)
		in.Rules = &rules
	}
	return f.Err()
}

func validateRulesetName(f *FieldErrors, name string) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		f.Add("name", "is required")
	case !checkLine(f, "name", name):
	case utf8.RuneCountInString(name) > MaxRulesetName:
		f.Add("name", fmt.Sprintf("must be at most %d characters", MaxRulesetName))
	}
	return name
}

// FirewallRuleset returns a ruleset of the actor's account, or
// CodeNotFound.
func (s *Store) FirewallRuleset(ctx context.Context, actor Actor, id string) (*FirewallRulesetView, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.rulesetView(s.read(ctx), accountID, id)
}

func (s *Store) rulesetView(db *gorm.DB, accountID, id string) (*FirewallRulesetView, error) {
	var r FirewallRuleset
	if err := takeOwned(db, &r, accountID, id); errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, rulesetNotFound(id)
	} else if err != nil {
		return nil, err
	}
	instances, err := s.rulesetInstances(db, accountID, r.ID)
	if err != nil {
		return nil, err
	}
	v := newRulesetView(r, instances[r.ID])
	return &v, nil
}

// rulesetInstances maps ruleset ids to the account's instances they
// are attached to, for one ruleset or ("") all of them.
func (s *Store) rulesetInstances(db *gorm.DB, accountID, rulesetID string) (map[string]attachedInstances, error) {
	// Led by the account's live instances (liveInstancesSQL): terminated
	// instances keep their rows and their attachments, so leading with
	// either read every instance the account ever had (issue 24: 65 us
	// with 4 instances, 319 us beside 1,000 terminated,
	// BenchmarkInstanceListsAsTerminatedAccumulate).
	now := s.Now()
	query := liveInstancesSQL("instances.id, instances.status, instances.status_until, instances.created_at") +
		"SELECT a.ruleset_id, i.id, i.status, i.status_until FROM live i " +
		"JOIN instance_rulesets a ON a.instance_id = i.id " +
		"WHERE NOT (i.status = ? OR (i.status = ? AND i.status_until <= ?))"
	args := []any{accountID, accountID, now, InstanceTerminated, InstanceTerminating, now}
	if rulesetID != "" {
		query += " AND a.ruleset_id = ?"
		args = append(args, rulesetID)
	}
	q := db.Raw(query+" ORDER BY i.created_at, i.id", args...)
	return scanAttachedInstances(q)
}

func newRulesetView(r FirewallRuleset, instances attachedInstances) FirewallRulesetView {
	ids := instances.ids
	if ids == nil {
		ids = []string{}
	}
	return FirewallRulesetView{FirewallRuleset: r, InstanceIDs: ids, leaveAt: instances.leaveAt}
}

func rulesetNotFound(id string) error {
	e := NotFound("firewall ruleset", id)
	e.Suggestion = "Check the ruleset's id; GET /api/v1/firewall-rulesets lists them"
	return e
}

// CreateFirewallRuleset creates a ruleset in the actor's account and
// records a "firewall_ruleset created" audit event. It fails with
// CodeQuotaExceeded when the account has RulesetQuota rulesets.
func (s *Store) CreateFirewallRuleset(ctx context.Context, actor Actor, in CreateFirewallRulesetInput) (*FirewallRulesetView, error) {
	r, err := createInAccount(ctx, s, actor, in.Validate, func(accountID, id string) (*FirewallRuleset, accountCreate, error) {
		now := s.Now()
		r := &FirewallRuleset{ID: id, AccountID: accountID, Name: in.Name, RegionName: in.Region,
			Rules: in.Rules, CreatedAt: now, UpdatedAt: now, Version: 1}
		return r, accountCreate{resource: "firewall_ruleset", quota: rulesetQuota,
			details: map[string]any{"name": r.Name, "region": r.RegionName, "rules": r.Rules}}, nil
	})
	if err != nil {
		return nil, err
	}
	v := newRulesetView(*r, attachedInstances{})
	return &v, nil
}

// UpdateFirewallRuleset changes the name and/or rules of a ruleset of the
// actor's account and records a "firewall_ruleset updated" audit event
// with the new values. With neither given nothing changes and nothing is
// recorded. It fails with CodeNotFound, and with CodePreconditionFailed,
// changing nothing, when in.IfMatch does not hold.
func (s *Store) UpdateFirewallRuleset(ctx context.Context, actor Actor, id string, in UpdateFirewallRulesetInput) (*FirewallRulesetView, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if in.Name == nil && in.Rules == nil {
		r, err := s.FirewallRuleset(ctx, actor, id)
		if err == nil && !in.IfMatch.holds(r.Version) {
			return nil, errPreconditionFailed
		}
		return r, err
	}
	if !IsID(id) {
		return nil, rulesetNotFound(id)
	}
	var out *FirewallRulesetView
	err = s.write(ctx, func(tx *gorm.DB) error {
		// The account first, as a delete locks it (deleteHeld): the audit
		// row's foreign key waits on the account's lock, so taking the
		// ruleset's row first deadlocked against a delete on PostgreSQL.
		if _, err := lockAccount(tx, accountID); err != nil {
			return err
		}
		if err := bumpRulesetVersion(tx, accountID, id, in.IfMatch); err != nil {
			return err
		}
		r := FirewallRuleset{UpdatedAt: s.Now()}
		columns, details := []string{"updated_at"}, map[string]any{}
		if in.Name != nil {
			r.Name, details["name"] = *in.Name, *in.Name
			columns = append(columns, "name")
		}
		if in.Rules != nil {
			r.Rules, details["rules"] = *in.Rules, *in.Rules
			columns = append(columns, "rules")
		}
		res := tx.Model(&FirewallRuleset{}).Where("account_id = ? AND id = ?", accountID, id).
			Select(columns).UpdateColumns(&r)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return rulesetNotFound(id)
		}
		v, err := s.rulesetView(tx, accountID, id)
		if err != nil {
			return err
		}
		out = v
		return s.audit(tx, actor, accountID, "firewall_ruleset", "updated", []string{lrn("firewall_ruleset", id)}, details)
	})
	return out, err
}

// bumpRulesetVersion adds one to a ruleset's version if pre holds, first
// in the transaction, so that of two writers with one ETag exactly one
// wins (see writeRuleList).
func bumpRulesetVersion(tx *gorm.DB, accountID, id string, pre Precondition) error {
	res := pre.where(tx.Model(&FirewallRuleset{}).Where("account_id = ? AND id = ?", accountID, id), "version").
		UpdateColumn("version", gorm.Expr("version + 1"))
	if res.Error != nil || res.RowsAffected > 0 {
		return res.Error
	}
	var n int64
	if err := tx.Model(&FirewallRuleset{}).Where("account_id = ? AND id = ?", accountID, id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return rulesetNotFound(id)
	}
	return errPreconditionFailed
}

// DeleteFirewallRuleset deletes a ruleset of the actor's account and
// records a "firewall_ruleset deleted" audit event. It fails with
// CodeNotFound, with CodeRulesetInUse while it is attached to an instance
// that holds it (booting, active or unhealthy), and with
// CodePreconditionFailed, deleting nothing, when pre does not hold.
func (s *Store) DeleteFirewallRuleset(ctx context.Context, actor Actor, id string, pre Precondition) (*FirewallRuleset, error) {
	if id == GlobalRulesetID {
		return nil, InvalidField("id", "the global ruleset cannot be deleted; PATCH its rules instead")
	}
	var r FirewallRuleset
	if err := s.deleteHeld(ctx, actor, id, &r, rulesetKind, pre); err != nil {
		return nil, err
	}
	return &r, nil
}

var rulesetKind = heldKind{
	resource: "firewall_ruleset", table: "instance_rulesets", column: "ruleset_id", version: "version",
	notFound: rulesetNotFound,
	inUse: func(name string) error {
		return &Error{Code: CodeRulesetInUse,
			Message:    fmt.Sprintf("Firewall ruleset %q is attached to a running instance", name),
			Suggestion: "Terminate the instances that use the ruleset, then delete it"}
	},
}

func (r *FirewallRuleset) describe() (id, name, region string) { return r.ID, r.Name, r.RegionName }

func (r *FirewallRuleset) currentVersion() int64 { return r.Version }
