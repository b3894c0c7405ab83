package models

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// MaxLaunchQuantity is the most instances one launch starts. The reference
// launches one instance per call; quantity is the contract's extension,
// bounded so that one call cannot take a region's capacity by mistake.
const MaxLaunchQuantity = 10

// maxLaunchList bounds each list in a launch request.
const maxLaunchList = 50

// MaxInstanceTags is the most tags a launch may give.
const MaxInstanceTags = maxLaunchList

var (
	hostnamePattern   = regexp.MustCompile(`^[a-z0-9][0-9a-z-]{0,62}$`)
	mountPointPattern = regexp.MustCompile(`^(/home|/lambda/nfs|/data)[/a-zA-Z0-9-]*$`)
	tagKeyPattern     = regexp.MustCompile(`^[a-z][a-z0-9-:]+$`)
)

// FilesystemMountInput mounts a filesystem, by id, at a chosen path.
type FilesystemMountInput struct {
	MountPoint   string `json:"mount_point"`
	FileSystemID string `json:"file_system_id"`
}

// RulesetRef names a firewall ruleset by id.
type RulesetRef struct {
	ID string `json:"id"`
}

// MaxUserDataBytes bounds a launch's user data: the reference's 1 MB.
const MaxUserDataBytes = 1_000_000

// LaunchInstancesInput is a launch request, shaped as the reference's.
// User data is checked as the reference describes it but not kept: the
// instances are simulated, so nothing would run it.
type LaunchInstancesInput struct {
	RegionName       string                 `json:"region_name"`
	InstanceTypeName string                 `json:"instance_type_name"`
	SSHKeyNames      []string               `json:"ssh_key_names"`
	Name             string                 `json:"name"`
	Quantity         *int                   `json:"quantity"` // nil means 1
	FileSystemNames  []string               `json:"file_system_names"`
	FileSystemMounts []FilesystemMountInput `json:"file_system_mounts"`
	Hostname         string                 `json:"hostname"`
	FirewallRulesets []RulesetRef           `json:"firewall_rulesets"`
	Tags             []InstanceTag          `json:"tags"`
	Image            *ImageSpec             `json:"image"`     // nil: DefaultImageFamily
	UserData         string                 `json:"user_data"` // cloud-init, plain text
}

// Validate checks what can be checked without the database and sets the
// default quantity. Names of the account's objects are looked up later.
func (in *LaunchInstancesInput) Validate() error {
	var f FieldErrors
	validateRegion(&f, "region_name", in.RegionName)
	validateInstanceType(&f, "instance_type_name", in.InstanceTypeName)
	switch len(in.SSHKeyNames) {
	case 0:
		f.Add("ssh_key_names", "is required")
	case 1:
		validateSSHKeyName(&f, "ssh_key_names.0", in.SSHKeyNames[0])
	default:
		f.Add("ssh_key_names", fmt.Sprintf("must name exactly one SSH key, got %d", len(in.SSHKeyNames)))
	}
	if in.Quantity == nil {
		one := 1
		in.Quantity = &one
	}
	if q := *in.Quantity; q < 1 || q > MaxLaunchQuantity {
		f.Add("quantity", fmt.Sprintf("must be between 1 and %d, got %d", MaxLaunchQuantity, q))
	}
	checkInstanceName(&f, in.Name)
	switch {
	case in.Hostname == "":
	case !hostnamePattern.MatchString(in.Hostname):
		f.Add("hostname", "must be 1-63 lower-case letters, digits and dashes, starting with a letter or digit")
	case *in.Quantity > 1:
		f.Add("hostname", "can only be given when quantity is 1: hostnames name one machine")
	}
	checkList(&f, "file_system_names", "", in.FileSystemNames)
	in.validateMounts(&f)
	rulesetIDs := make([]string, len(in.FirewallRulesets))
	for i, r := range in.FirewallRulesets {
		rulesetIDs[i] = r.ID
	}
	checkList(&f, "firewall_rulesets", ".id", rulesetIDs)
	validateTags(&f, in.Tags)
	if in.Image != nil {
		in.Image.validate(&f)
	}
	if checkMultiline(&f, "user_data", in.UserData) && len(in.UserData) > MaxUserDataBytes {
		f.Add("user_data", fmt.Sprintf("must be at most 1 MB (%d bytes), got %d bytes", MaxUserDataBytes, len(in.UserData)))
	}
	return f.Err()
}

func (in *LaunchInstancesInput) validateMounts(f *FieldErrors) {
	ids := make([]string, len(in.FileSystemMounts))
	points := make([]string, len(in.FileSystemMounts))
	for i, m := range in.FileSystemMounts {
		ids[i], points[i] = m.FileSystemID, m.MountPoint
		at := fmt.Sprintf("file_system_mounts.%d.mount_point", i)
		if len(m.MountPoint) > 256 {
			f.Add(at, fmt.Sprintf("must be at most 256 characters, got %d", len(m.MountPoint)))
		} else if m.MountPoint != "" && !mountPointPattern.MatchString(m.MountPoint) {
			f.Add(at, "must be a path under /home, /lambda/nfs or /data, of letters, digits, dashes and slashes")
		}
	}
	checkList(f, "file_system_mounts", ".file_system_id", ids)
	checkList(f, "file_system_mounts", ".mount_point", points)
}

func validateTags(f *FieldErrors, tags []InstanceTag) {
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = t.Key
		if t.Key != "" && (len(t.Key) > 55 || !tagKeyPattern.MatchString(t.Key)) {
			f.Add(fmt.Sprintf("tags.%d.key", i), "must be 2-55 characters: a lower-case letter, then lower-case letters, digits, '-' or ':'")
		}
		if !checkLine(f, fmt.Sprintf("tags.%d.value", i), t.Value) {
			continue
		}
		if n := utf8.RuneCountInString(t.Value); n > 128 {
			f.Add(fmt.Sprintf("tags.%d.value", i), fmt.Sprintf("must be at most 128 characters, got %d", n))
		}
	}
	checkList(f, "tags", ".key", keys)
}

// checkList bounds a list and reports empty and repeated entries under
// "<field>.<index><suffix>".
func checkList(f *FieldErrors, field, suffix string, values []string) {
	if len(values) > maxLaunchList {
		f.Add(field, fmt.Sprintf("at most %d entries are allowed, got %d", maxLaunchList, len(values)))
		return
	}
	seen := make(map[string]bool, len(values))
	for i, v := range values {
		at := fmt.Sprintf("%s.%d%s", field, i, suffix)
		switch {
		case v == "":
			f.Add(at, "is required")
		case !checkLine(f, at, v):
		case seen[v]:
			f.Add(at, fmt.Sprintf("%q is listed twice", v))
		}
		seen[v] = true
	}
}
