package models

import (
	"fmt"

	"gorm.io/gorm"
)

const (
	suggestFilesystems = "List your filesystems with GET /api/v1/filesystems"
	suggestRulesets    = "List your firewall rulesets with GET /api/v1/firewall-rulesets"
)

// launchMounts resolves the filesystems a launch names (mounted at
// /lambda/nfs/<name>) and the ones it mounts by id at chosen paths. Each
// must be the account's and in the launch region. A filesystem both named
// and mounted is mounted once, at the path of its mount, as the reference
// says (lambda-cloud-cli sends both lists); otherwise no filesystem and no
// mount point may appear twice.
func launchMounts(tx *gorm.DB, accountID string, in *LaunchInstancesInput) ([]InstanceFilesystem, error) {
	byName, err := accountFilesystems(tx, accountID, "name", in.FileSystemNames)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(in.FileSystemMounts))
	for i, m := range in.FileSystemMounts {
		ids[i] = m.FileSystemID
	}
	byID, err := accountFilesystems(tx, accountID, "id", ids)
	if err != nil {
		return nil, err
	}
	var out []InstanceFilesystem
	seenFS, seenPoint := map[string]bool{}, map[string]bool{}
	add := func(fs Filesystem, ref, field, mountPoint string) error {
		switch {
		case fs.ID == "":
			return launchNotFound(NotFound("filesystem", ref), field, suggestFilesystems)
		case fs.RegionName != in.RegionName:
			msg := fmt.Sprintf("filesystem %q is in %s, not in the launch region %s", fs.Name, fs.RegionName, in.RegionName)
			return &Error{Code: CodeFilesystemWrongZone, Message: field + ": " + msg, Fields: map[string]string{field: msg},
				Suggestion: "Launch in the filesystem's region, or use a filesystem in " + in.RegionName}
		case seenFS[fs.ID]:
			return InvalidField(field, fmt.Sprintf("filesystem %q is mounted twice", fs.Name))
		case seenPoint[mountPoint]:
			return InvalidField(field, fmt.Sprintf("mount point %q is used twice", mountPoint))
		}
		seenFS[fs.ID], seenPoint[mountPoint] = true, true
		out = append(out, InstanceFilesystem{FilesystemID: fs.ID, MountPoint: mountPoint})
		return nil
	}
	for i, name := range in.FileSystemNames {
		fs := byName[name]
		if fs.ID != "" && mountedByID(in.FileSystemMounts, fs.ID) {
			continue // its mount, below, says where
		}
		if err := add(fs, name, fmt.Sprintf("file_system_names.%d", i), "/lambda/nfs/"+fs.Name); err != nil {
			return nil, err
		}
	}
	for i, m := range in.FileSystemMounts {
		if err := add(byID[m.FileSystemID], m.FileSystemID, fmt.Sprintf("file_system_mounts.%d", i), m.MountPoint); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mountedByID tells whether mounts mount the filesystem id.
func mountedByID(mounts []FilesystemMountInput, id string) bool {
	for _, m := range mounts {
		if m.FileSystemID == id {
			return true
		}
	}
	return false
}

// accountFilesystems returns the account's filesystems whose column (name
// or id) is one of values, keyed by that value.
func accountFilesystems(tx *gorm.DB, accountID, column string, values []string) (map[string]Filesystem, error) {
	out := map[string]Filesystem{}
	if len(values) == 0 {
		return out, nil
	}
	var rows []Filesystem
	if err := tx.Where("account_id = ? AND "+column+" IN ?", accountID, values).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		if column == "id" {
			out[r.ID] = r
		} else {
			out[r.Name] = r
		}
	}
	return out, nil
}

// launchRulesets checks that each ruleset a launch names is the account's
// and in the launch region, and returns their ids.
func launchRulesets(tx *gorm.DB, accountID string, in *LaunchInstancesInput) ([]string, error) {
	if len(in.FirewallRulesets) == 0 {
		return nil, nil
	}
	ids := make([]string, len(in.FirewallRulesets))
	for i, r := range in.FirewallRulesets {
		ids[i] = r.ID
	}
	var rows []FirewallRuleset
	if err := tx.Select("id, region_name").Where("account_id = ? AND id IN ?", accountID, ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	region := make(map[string]string, len(rows))
	for _, r := range rows {
		region[r.ID] = r.RegionName
	}
	for i, id := range ids {
		switch r, ok := region[id]; {
		case !ok:
			return nil, launchNotFound(NotFound("firewall ruleset", id), fmt.Sprintf("firewall_rulesets.%d.id", i), suggestRulesets)
		case r != in.RegionName:
			return nil, InvalidField(fmt.Sprintf("firewall_rulesets.%d.id", i),
				fmt.Sprintf("ruleset %q is in %s, not in the launch region %s", id, r, in.RegionName))
		}
	}
	return ids, nil
}
