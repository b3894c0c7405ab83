package models

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

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
// as GORM's Find would. Queries are written as Raw SQL: GORM's clause
// building cost more allocations than the rows' scan.
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
// into a nil slice. Tags are written by encoding/json, keys first, and
// their keys and most values need no escape: plainInstanceTags reads
// those without reflection; anything else is left to json.Unmarshal.
func decodeInstanceTags(raw []byte) ([]InstanceTag, error) {
	if tags, ok := plainInstanceTags(string(raw)); ok {
		return tags, nil
	}
	var tags []InstanceTag
	err := json.Unmarshal(raw, &tags)
	return tags, err
}

// plainInstanceTags reads s when it is exactly as encoding/json writes a
// []InstanceTag whose strings stand for themselves: no space, no escape,
// valid UTF-8. It reports false for any other text.
func plainInstanceTags(s string) ([]InstanceTag, bool) {
	if s == "[]" {
		return []InstanceTag{}, true
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	tags := make([]InstanceTag, 0, strings.Count(body, `{"key":`))
	for {
		var t InstanceTag
		var ok bool
		if body, ok = strings.CutPrefix(body, `{"key":"`); !ok {
			return nil, false
		}
		if t.Key, body, ok = plainJSONText(body); !ok {
			return nil, false
		}
		if body, ok = strings.CutPrefix(body, `,"value":"`); !ok {
			return nil, false
		}
		if t.Value, body, ok = plainJSONText(body); !ok {
			return nil, false
		}
		if body, ok = strings.CutPrefix(body, "}"); !ok {
			return nil, false
		}
		tags = append(tags, t)
		if body == "" {
			return tags, true
		}
		if body, ok = strings.CutPrefix(body, ","); !ok {
			return nil, false
		}
	}
}

// instanceMountRow is a mount with the instance it belongs to.
type instanceMountRow struct {
	instanceID string
	InstanceMount
}

// findInstanceMounts reads the mounts of the instances with ids, each
// instance's by filesystem name.
func findInstanceMounts(db *gorm.DB, ids []string) ([]instanceMountRow, error) {
	rows, err := db.Raw("SELECT instance_filesystems.instance_id, instance_filesystems.filesystem_id, "+
		"filesystems.name, instance_filesystems.mount_point FROM instance_filesystems "+
		"JOIN filesystems ON filesystems.id = instance_filesystems.filesystem_id "+
		"WHERE instance_filesystems.instance_id IN ? ORDER BY filesystems.name", ids).Rows()
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
	rows, err := db.Raw("SELECT instance_rulesets.instance_id, instance_rulesets.ruleset_id FROM instance_rulesets "+
		"JOIN firewall_rulesets ON firewall_rulesets.id = instance_rulesets.ruleset_id "+
		"WHERE instance_rulesets.instance_id IN ? ORDER BY instance_rulesets.ruleset_id", ids).Rows()
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
