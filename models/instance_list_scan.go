package models

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
)

// The instance list is a hot read (issue 24): GORM's scan, by reflection
// per field per row and with its JSON serializer for ssh_key_names and
// tags, was most of its cost after the queries. Its rows, mounts and
// rulesets are scanned here into the fields directly.

// instanceColumns are an instance's columns in the order findInstances
// reads them.
const instanceColumns = "instances.id, instances.account_id, instances.name, instances.region_name, " +
	"instances.instance_type_name, instances.status, instances.status_until, instances.ip, instances.private_ip, " +
	"instances.hostname, instances.ssh_key_names, instances.created_at, instances.updated_at, " +
	"instances.price_cents_per_hour, instances.terminated_at, instances.tags, instances.image_id"

// findInstances runs q, which selects instanceColumns, and scans every row
// as GORM's Find would.
func findInstances(q *gorm.DB) ([]Instance, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Instance
	// Read before the next row; the decoders copy what they keep.
	var sshKeyNames, tags sql.RawBytes
	for rows.Next() {
		var i Instance
		if err := rows.Scan(&i.ID, &i.AccountID, &i.Name, &i.RegionName, &i.InstanceTypeName, &i.Status,
			&i.StatusUntil, &i.IP, &i.PrivateIP, &i.Hostname, &sshKeyNames, &i.CreatedAt, &i.UpdatedAt,
			&i.PriceCentsPerHour, &i.TerminatedAt, &tags, &i.ImageID); err != nil {
			return nil, err
		}
		// An empty column is left nil, as GORM's JSON serializer leaves it.
		if len(sshKeyNames) > 0 {
			if i.SSHKeyNames, err = decodeAuditLRNs(sshKeyNames); err != nil {
				return nil, fmt.Errorf("instance %s: ssh_key_names: %w", i.ID, err)
			}
		}
		if len(tags) > 0 {
			if i.Tags, err = decodeInstanceTags(tags); err != nil {
				return nil, fmt.Errorf("instance %s: tags: %w", i.ID, err)
			}
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// decodeInstanceTags reads a stored tags column as json.Unmarshal would
// into a nil slice; most instances have none, which costs no allocation.
func decodeInstanceTags(raw []byte) ([]InstanceTag, error) {
	if string(raw) == "[]" {
		return []InstanceTag{}, nil
	}
	var tags []InstanceTag
	err := json.Unmarshal(raw, &tags)
	return tags, err
}

// instanceMountRow is a mount with the instance it belongs to.
type instanceMountRow struct {
	instanceID string
	InstanceMount
}

// findInstanceMounts reads the mounts of the instances with ids, each
// instance's by filesystem name.
func findInstanceMounts(db *gorm.DB, ids []string) ([]instanceMountRow, error) {
	rows, err := db.Table("instance_filesystems").
		Select("instance_filesystems.instance_id, instance_filesystems.filesystem_id, "+
			"filesystems.name, instance_filesystems.mount_point").
		Joins("JOIN filesystems ON filesystems.id = instance_filesystems.filesystem_id").
		Where("instance_filesystems.instance_id IN ?", ids).
		Order("filesystems.name").Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []instanceMountRow
	for rows.Next() {
		var m instanceMountRow
		if err := rows.Scan(&m.instanceID, &m.FilesystemID, &m.FilesystemName, &m.MountPoint); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// findInstanceRulesets reads the rulesets attached to the instances with
// ids, by ruleset id.
func findInstanceRulesets(db *gorm.DB, ids []string) ([]InstanceRuleset, error) {
	rows, err := db.Table("instance_rulesets").
		Select("instance_rulesets.instance_id, instance_rulesets.ruleset_id").
		Joins("JOIN firewall_rulesets ON firewall_rulesets.id = instance_rulesets.ruleset_id").
		Where("instance_rulesets.instance_id IN ?", ids).
		Order("instance_rulesets.ruleset_id").Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []InstanceRuleset
	for rows.Next() {
		var a InstanceRuleset
		if err := rows.Scan(&a.InstanceID, &a.RulesetID); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
