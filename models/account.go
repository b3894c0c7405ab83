package models

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

var forUpdate = clause.Locking{Strength: "UPDATE"}

// Account statuses.
const (
	AccountActive   = "active"
	AccountInactive = "inactive"
)

// Account owns every resource. Its inbound firewall rules and global
// ruleset are one list each, so they live on the row as JSON.
type Account struct {
	ID                  string         `gorm:"primaryKey;size:32"`
	Status              string         `gorm:"size:16;not null"`
	BillingAddressValid bool           `gorm:"not null"`
	FilesystemQuota     int            `gorm:"not null"`
	RulesetQuota        int            `gorm:"not null"`
	InboundRules        []FirewallRule `gorm:"serializer:json;not null"`
	GlobalRules         []FirewallRule `gorm:"serializer:json;not null"`
	CreatedAt           time.Time      `gorm:"not null"`
	UpdatedAt           time.Time      `gorm:"not null"`
	// The versions of the two rule lists, behind their ETags: each write
	// of a list adds one.
	InboundRulesVersion int64 `gorm:"not null;default:1"`
	GlobalRulesVersion  int64 `gorm:"not null;default:1"`

	FabricPartitionQuota int `gorm:"not null"`
	// RequireSecondFactor: its owners require a second factor of every
	// member (SetRequireSecondFactor).
	RequireSecondFactor bool `gorm:"not null;default:false"`
}

// Active reports whether the account may use the API.
func (a *Account) Active() bool { return a.Status == AccountActive }

// requireBillingAddress fails with CodeInvalidAddress unless the account's
// billing address is valid, which creating billable resources needs.
func (a *Account) requireBillingAddress() error {
	if a.BillingAddressValid {
		return nil
	}
	return &Error{Code: CodeInvalidAddress, Message: "The account's billing address is invalid",
		Suggestion: "Correct the billing address, or contact support if the problem continues"}
}

// Account returns an account by id.
func (s *Store) Account(ctx context.Context, id string) (*Account, error) {
	var a Account
	err := s.read(ctx).Where("id = ?", id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("account", id)
	}
	return &a, err
}

// actorAccount returns the account the actor acts on.
func (s *Store) actorAccount(ctx context.Context, actor Actor) (*Account, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.Account(ctx, accountID)
}

// updateAccountColumn writes one column of the account, taken from values,
// and its updated_at, leaving the rest of the row to concurrent writers.
// It bypasses GORM's update hooks so that updated_at comes from the
// store's clock.
func updateAccountColumn(tx *gorm.DB, accountID, column string, values Account) error {
	res := tx.Model(&Account{ID: accountID}).Select(column, "updated_at").UpdateColumns(&values)
	if res.Error == nil && res.RowsAffected == 0 {
		return NotFound("account", accountID)
	}
	return res.Error
}

// UpdateAccountInput is the operator's change to an account; nil fields
// stay as they are.
type UpdateAccountInput struct {
	Status              *string
	BillingAddressValid *bool
	FilesystemQuota     *int
	RulesetQuota        *int

	FabricPartitionQuota *int

	// Reason says why, in words the account's owners read: it is kept in
	// the audit event and shown to them on their overview. Support staff
	// must give one (see UpdateAccount); the operator's CLI may.
	Reason string
}

// AccountReasonMaxLength is the longest reason for a change to an account.
const AccountReasonMaxLength = 500

// Validate checks the operator's values.
func (in UpdateAccountInput) Validate() error {
	var f FieldErrors
	if msg := textProblem(in.Reason, false); msg != "" {
		f.Add("reason", msg)
	} else if utf8.RuneCountInString(in.Reason) > AccountReasonMaxLength {
		f.Add("reason", fmt.Sprintf("must be at most %d characters", AccountReasonMaxLength))
	}
	if in.Status != nil && *in.Status != AccountActive && *in.Status != AccountInactive {
		f.Add("status", "must be active or inactive")
	}
	if in.FilesystemQuota != nil && *in.FilesystemQuota < 0 {
		f.Add("filesystem_quota", "must not be negative")
	}
	if in.RulesetQuota != nil && *in.RulesetQuota < 0 {
		f.Add("ruleset_quota", "must not be negative")
	}
	if in.FabricPartitionQuota != nil && *in.FabricPartitionQuota < 0 {
		f.Add("fabric_partition_quota", "must not be negative")
	}
	return f.Err()
}

// UpdateAccount applies an operator change (CLI) to the account ref
// names: its id, or the email of an owner of it who owns no other (see
// accountByRef), recording an audit event. Support staff must say why
// (in.Reason, CodeInvalidParameters on "reason" without one); the
// reason, the changed values and the ones they replaced go into the
// audit event the owners see.
func (s *Store) UpdateAccount(ctx context.Context, actor Actor, ref string, in UpdateAccountInput) (*Account, error) {
	return s.updateAccount(ctx, actor, in, func(tx *gorm.DB) (string, error) {
		return accountByRef(tx, "account", ref)
	})
}

// UpdateAccountByID is UpdateAccount for the account with the id, as
// support staff change it from the dashboard. Staff only; an unknown id is
// CodeNotFound.
func (s *Store) UpdateAccountByID(ctx context.Context, actor Actor, id string, in UpdateAccountInput) (*Account, error) {
	return s.updateAccount(ctx, actor, in, func(*gorm.DB) (string, error) { return id, nil })
}

// updateAccount applies in to the account find names, in one transaction
// with its audit event. A status change replaces the credentials version,
// so that every replica drops the account's cached API keys.
func (s *Store) updateAccount(ctx context.Context, actor Actor, in UpdateAccountInput, find func(*gorm.DB) (string, error)) (*Account, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff and the operator change accounts")
	}
	in.Reason = strings.TrimSpace(in.Reason)
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if actor.IsSupport() && in.Reason == "" {
		return nil, InvalidField("reason", "say why, in words the account’s owners will read")
	}
	var out *Account
	err := s.write(ctx, func(tx *gorm.DB) error {
		id, err := find(tx)
		if err != nil {
			return err
		}
		if !IsID(id) {
			return NotFound("account", id)
		}
		a, err := lockAccount(tx, id)
		if err != nil {
			return err
		}
		changes, previous := map[string]any{}, map[string]any{}
		if in.Status != nil && *in.Status != a.Status {
			previous["status"] = a.Status
			a.Status, changes["status"] = *in.Status, *in.Status
		}
		if in.BillingAddressValid != nil && *in.BillingAddressValid != a.BillingAddressValid {
			previous["billing_address_valid"] = a.BillingAddressValid
			a.BillingAddressValid, changes["billing_address_valid"] = *in.BillingAddressValid, *in.BillingAddressValid
		}
		if in.FilesystemQuota != nil && *in.FilesystemQuota != a.FilesystemQuota {
			previous["filesystem_quota"] = a.FilesystemQuota
			a.FilesystemQuota, changes["filesystem_quota"] = *in.FilesystemQuota, *in.FilesystemQuota
		}
		if in.RulesetQuota != nil && *in.RulesetQuota != a.RulesetQuota {
			previous["ruleset_quota"] = a.RulesetQuota
			a.RulesetQuota, changes["ruleset_quota"] = *in.RulesetQuota, *in.RulesetQuota
		}
		if in.FabricPartitionQuota != nil && *in.FabricPartitionQuota != a.FabricPartitionQuota {
			previous["fabric_partition_quota"] = a.FabricPartitionQuota
			a.FabricPartitionQuota, changes["fabric_partition_quota"] = *in.FabricPartitionQuota, *in.FabricPartitionQuota
		}
		out = a
		if len(changes) == 0 {
			return nil
		}
		a.UpdatedAt = s.Now()
		columns := maps.Clone(changes)
		columns["updated_at"] = a.UpdatedAt
		// UpdateColumns, not Save: Save would stamp updated_at from the wall
		// clock instead of the store's.
		if err := tx.Model(&Account{}).Where("id = ?", a.ID).UpdateColumns(columns).Error; err != nil {
			return err
		}
		if _, ok := changes["status"]; ok {
			if err := bumpCredentials(tx); err != nil {
				return err
			}
		}
		if err := s.notifyAccountChanged(tx, a.ID, changes, in.Reason); err != nil {
			return err
		}
		details := maps.Clone(changes)
		details["previous"] = previous
		if in.Reason != "" {
			details["reason"] = in.Reason
		}
		return s.audit(tx, actor, a.ID, "account", "updated", []string{lrn("account", a.ID)}, details)
	})
	if err == nil {
		s.keys.forgetAccount(out.ID)
		s.wakeMail()
	}
	return out, err
}
