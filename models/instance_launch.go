package models

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// LaunchInstances starts in.Quantity instances in the actor's account, all
// or none. They boot for Config.InstanceBootTime, then read as active.
// Codes: CodeInvalidParameters (bad input, naming the field);
// CodeInvalidAddress (the account's billing address is invalid);
// CodeNotFound (the SSH key, a filesystem or a ruleset is not the
// account's; the image does not exist or is not offered in the region);
// CodeFilesystemWrongZone; CodeInsufficientCap; CodeBudgetExceeded (the
// month's spend reached a budget that stops launches). Each instance records its
// image (see launchImageID). Capacity holds
// under concurrent launches from any account (see reserveCapacity).
// Records one instance/launched event per instance: each is its own object.
func (s *Store) LaunchInstances(ctx context.Context, actor Actor, in LaunchInstancesInput) ([]string, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	// Before the write: the month's spend reads every instance of the
	// month, too long to hold SQLite's write lock for, and a launch adds
	// nothing to the spend so far, so checking it inside could refuse
	// nothing more.
	if err := budgetAllowsLaunch(s.read(ctx), accountID, s.Now()); err != nil {
		return nil, translate(err)
	}
	var ids []string
	err = s.write(ctx, func(tx *gorm.DB) error {
		ids = nil
		a, err := lockAccount(tx, accountID)
		if err != nil {
			return err
		}
		if err := a.requireBillingAddress(); err != nil {
			return err
		}
		if _, err := sshKeyByName(tx, accountID, in.SSHKeyNames[0]); err != nil {
			return launchNotFound(err, "ssh_key_names.0", "List your keys with GET /api/v1/ssh-keys, or add one with POST /api/v1/ssh-keys")
		}
		mounts, err := launchMounts(tx, accountID, &in)
		if err != nil {
			return err
		}
		imageID, err := launchImageID(&in)
		if err != nil {
			return err
		}
		rulesets, err := launchRulesets(tx, accountID, &in)
		if err != nil {
			return err
		}
		if err := s.reserveCapacity(tx, in.InstanceTypeName, in.RegionName, *in.Quantity); err != nil {
			return err
		}
		for range *in.Quantity {
			id, err := s.createInstance(tx, actor, accountID, &in, imageID, mounts, rulesets)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	_, _ = s.EvaluateBudget(ctx, accountID) // the launch raised the forecast; the sweep retries a failure
	return ids, nil
}

// launchNotFound names the field in a launch's missing-resource error and
// adds the suggestion the reference requires on it. Fields lets the
// dashboard show it beside the field, as it does validation errors.
func launchNotFound(err error, field, suggestion string) error {
	if e, ok := AsError(err); ok && e.Code == CodeNotFound {
		return &Error{Code: CodeNotFound, Message: field + ": " + e.Message, Suggestion: suggestion,
			Fields: map[string]string{field: e.Message}}
	}
	return err
}

func (s *Store) createInstance(tx *gorm.DB, actor Actor, accountID string, in *LaunchInstancesInput,
	imageID *string, mounts []InstanceFilesystem, rulesetIDs []string) (string, error) {
	ip, err := freePublicIP(tx)
	if err != nil {
		return "", err
	}
	now := s.Now()
	until := now.Add(s.cfg.InstanceBootTime)
	inst := Instance{ID: NewID(), AccountID: accountID, Name: in.Name, RegionName: in.RegionName,
		InstanceTypeName: in.InstanceTypeName, Status: InstanceBooting, StatusUntil: &until,
		IP: ip, PrivateIP: randomPrivateIP(), Hostname: in.Hostname,
		SSHKeyNames: []string{in.SSHKeyNames[0]}, Tags: append([]InstanceTag{}, in.Tags...),
		ImageID: imageID, CreatedAt: now, UpdatedAt: now, PriceCentsPerHour: launchPrice(in.InstanceTypeName)}
	if inst.Hostname == "" {
		inst.Hostname = strings.ReplaceAll(ip, ".", "-")
	}
	if err := tx.Create(&inst).Error; err != nil {
		return "", err
	}
	if len(mounts) > 0 {
		rows := make([]InstanceFilesystem, len(mounts))
		for i, m := range mounts {
			rows[i] = InstanceFilesystem{InstanceID: inst.ID, FilesystemID: m.FilesystemID, MountPoint: m.MountPoint}
		}
		if err := tx.Create(&rows).Error; err != nil {
			return "", err
		}
	}
	if len(rulesetIDs) > 0 {
		rows := make([]InstanceRuleset, len(rulesetIDs))
		for i, id := range rulesetIDs {
			rows[i] = InstanceRuleset{InstanceID: inst.ID, RulesetID: id}
		}
		if err := tx.Create(&rows).Error; err != nil {
			return "", err
		}
	}
	details := map[string]any{"name": inst.Name, "region_name": inst.RegionName, "instance_type_name": inst.InstanceTypeName}
	if imageID != nil {
		details["image_id"] = *imageID
	}
	return inst.ID, s.audit(tx, actor, accountID, "instance", "launched", []string{lrn("instance", inst.ID)}, details)
}

// randomPublicIP returns an address in 198.18.0.0/15, the block set aside
// for benchmarking (RFC 2544): it reads as a public address, yet it is no
// one's real host, so a user who tries to reach it reaches nobody.
func randomPublicIP() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("198.%d.%d.%d", 18+b[0]&1, b[1], 1+int(b[2])%254)
}

func randomPrivateIP() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("10.%d.%d.%d", b[0], b[1], 1+int(b[2])%254)
}

// freePublicIP picks a public address no instance that is not terminated
// holds. Launches in other regions or of other types do not wait for each
// other, so two of them could still draw the same address at the same
// moment; with 130,000 addresses that is left to chance.
func freePublicIP(tx *gorm.DB) (string, error) {
	for range 16 {
		ip := randomPublicIP()
		var n int64
		if err := tx.Model(&Instance{}).Where("ip = ? AND status <> ?", ip, InstanceTerminated).Count(&n).Error; err != nil {
			return "", err
		}
		if n == 0 {
			return ip, nil
		}
	}
	return "", fmt.Errorf("no free public address found")
}
