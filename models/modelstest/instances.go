package modelstest

import (
	"testing"

	"cloudplane/models"
)

// InsertInstance writes an instance row directly, so that rules about
// running instances (a mounted filesystem, an attached ruleset) can be
// tested without launching. Fields left empty get plausible values; set
// at least AccountID and Status.
func InsertInstance(tb testing.TB, store *models.Store, inst models.Instance) *models.Instance {
	tb.Helper()
	if inst.ID == "" {
		inst.ID = models.NewID()
	}
	if inst.Name == "" {
		inst.Name = "test-" + inst.ID[len(inst.ID)-8:]
	}
	if inst.RegionName == "" {
		inst.RegionName = "us-east-1"
	}
	if inst.InstanceTypeName == "" {
		inst.InstanceTypeName = "gpu_1x_a10"
	}
	if inst.IP == "" {
		inst.IP, inst.PrivateIP = "198.51.100.10", "10.0.0.10"
	}
	if inst.Hostname == "" {
		inst.Hostname = inst.Name
	}
	if inst.SSHKeyNames == nil {
		inst.SSHKeyNames = []string{}
	}
	if inst.CreatedAt.IsZero() {
		inst.CreatedAt = store.Now()
	}
	inst.UpdatedAt = inst.CreatedAt
	if err := store.DB().Create(&inst).Error; err != nil {
		tb.Fatalf("insert instance: %v", err)
	}
	changed(tb, store, inst.AccountID)
	return &inst
}

// Mount mounts a filesystem on an instance, as a launch would.
func Mount(tb testing.TB, store *models.Store, instanceID, filesystemID, mountPoint string) {
	tb.Helper()
	m := models.InstanceFilesystem{InstanceID: instanceID, FilesystemID: filesystemID, MountPoint: mountPoint}
	if err := store.DB().Create(&m).Error; err != nil {
		tb.Fatalf("mount filesystem: %v", err)
	}
	instanceChanged(tb, store, instanceID)
}

// Attach attaches a firewall ruleset to an instance, as a launch would.
func Attach(tb testing.TB, store *models.Store, instanceID, rulesetID string) {
	tb.Helper()
	a := models.InstanceRuleset{InstanceID: instanceID, RulesetID: rulesetID}
	if err := store.DB().Create(&a).Error; err != nil {
		tb.Fatalf("attach ruleset: %v", err)
	}
	instanceChanged(tb, store, instanceID)
}

// AuditCount is how many audit events the account has for resource
// (e.g. "filesystem"); every change must write exactly one.
func AuditCount(tb testing.TB, store *models.Store, accountID, resource string) int64 {
	tb.Helper()
	var n int64
	err := store.DB().Model(&models.AuditEvent{}).
		Where("account_id = ? AND resource_name = ?", accountID, resource).Count(&n).Error
	if err != nil {
		tb.Fatalf("count audit events: %v", err)
	}
	return n
}

// Image is the catalogue's image of family and version in region; the
// test fails when there is none.
func Image(tb testing.TB, family, version, region string) models.Image {
	tb.Helper()
	img, ok := models.ImageVersion(family, version, region)
	if !ok {
		tb.Fatalf("no image %s %s in %s", family, version, region)
	}
	return *img
}

// PersonalEvents returns the newest n events of the platform's log (no
// account) that concern the user: made by them or naming them. Personal
// events (sign-ins, password and email changes) are recorded there.
func PersonalEvents(tb testing.TB, store *models.Store, userID string, n int) []models.AuditEvent {
	tb.Helper()
	var out []models.AuditEvent
	err := store.DB().Where("account_id = ? AND (actor_lrn = ? OR resource_lrns LIKE ?)", "", "lrn:cloud:user:"+userID, "%"+userID+"%").
		Order("event_time DESC, id DESC").Limit(n).Find(&out).Error
	if err != nil {
		tb.Fatalf("personal events: %v", err)
	}
	return out
}
