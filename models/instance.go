package models

import "time"

// Instance statuses, as the API names them.
const (
	InstanceBooting     = "booting"
	InstanceActive      = "active"
	InstanceUnhealthy   = "unhealthy"
	InstanceTerminating = "terminating"
	InstanceTerminated  = "terminated"
)

// instanceInUseStatuses are the statuses in which an instance holds its
// filesystems and rulesets: they cannot be deleted meanwhile.
var instanceInUseStatuses = []string{InstanceBooting, InstanceActive, InstanceUnhealthy}

// Instance is a simulated virtual machine. A transitional status (booting,
// terminating) ends at StatusUntil; reads report the status it has reached
// by then, so no background job is needed to advance it.
type Instance struct {
	ID               string     `gorm:"primaryKey;size:32;index:idx_instances_account_ids,priority:2"`
	AccountID        string     `gorm:"size:32;not null;index;index:idx_instances_search,priority:1;index:idx_instances_usage,priority:1;index:idx_instances_account_ids,priority:1;index:idx_instances_live,priority:1"`
	Name             string     `gorm:"size:64;not null;index:idx_instances_search,expression:lower(name),priority:2"`
	RegionName       string     `gorm:"size:32;not null;index:idx_instances_in_use,priority:3"`
	InstanceTypeName string     `gorm:"size:64;not null;index:idx_instances_in_use,priority:2"`
	Status           string     `gorm:"size:16;not null;index:idx_instances_in_use,priority:1"`
	StatusUntil      *time.Time // end of a transitional status
	IP               string     `gorm:"size:45;not null;index:idx_instances_ip"`
	PrivateIP        string     `gorm:"size:45;not null"`
	Hostname         string     `gorm:"size:63;not null"`
	SSHKeyNames      []string   `gorm:"serializer:json;not null"`
	CreatedAt        time.Time  `gorm:"not null;index:idx_instances_usage,priority:2"`
	UpdatedAt        time.Time  `gorm:"not null"`

	// PriceCentsPerHour is its type's price at launch; it keeps it when
	// the catalogue changes (migration 0030).
	PriceCentsPerHour int64 `gorm:"not null;default:0"`
	// TerminatedAt is when it stops accruing: the end of its terminating
	// phase, set when termination is asked for; nil until then.
	TerminatedAt *time.Time `gorm:"index:idx_instances_live,priority:2"`

	// Tags are the labels given at launch.
	Tags []InstanceTag `gorm:"serializer:json;not null"`

	// ImageID is the catalogue image it booted (see Images); nil for
	// instances launched before images were recorded.
	ImageID *string `gorm:"size:32"`
}

// InstanceTag is a key/value label on an instance. The JSON tags are the
// API's field names.
type InstanceTag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// InstanceFilesystem mounts a filesystem on an instance.
type InstanceFilesystem struct {
	InstanceID   string `gorm:"primaryKey;size:32"`
	FilesystemID string `gorm:"primaryKey;size:32;index"`
	MountPoint   string `gorm:"size:256;not null"`
}

// InstanceRuleset attaches a firewall ruleset to an instance.
type InstanceRuleset struct {
	InstanceID string `gorm:"primaryKey;size:32"`
	RulesetID  string `gorm:"primaryKey;size:32;index"`
}
