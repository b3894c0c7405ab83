package modelstest

import (
	"testing"

	"cloudplane/models"
)

// InsertFilesystem writes a filesystem row of the owner's account directly,
// for tests of operations that only read filesystems (launches), and
// returns its id.
func InsertFilesystem(tb testing.TB, store *models.Store, owner *models.User, name, region string) string {
	tb.Helper()
	now := store.Now()
	fs := models.Filesystem{ID: models.NewID(), AccountID: *owner.AccountID, Name: name, RegionName: region,
		CreatedByUserID: owner.ID, CreatedAt: now, UpdatedAt: now}
	if err := store.DB().Create(&fs).Error; err != nil {
		tb.Fatalf("insert filesystem %s: %v", name, err)
	}
	return fs.ID
}

// InsertRuleset writes a firewall ruleset row (with no rules) of the
// owner's account directly, like InsertFilesystem, and returns its id.
func InsertRuleset(tb testing.TB, store *models.Store, owner *models.User, name, region string) string {
	tb.Helper()
	now := store.Now()
	rs := models.FirewallRuleset{ID: models.NewID(), AccountID: *owner.AccountID, Name: name, RegionName: region,
		Rules: []models.FirewallRule{}, CreatedAt: now, UpdatedAt: now}
	if err := store.DB().Create(&rs).Error; err != nil {
		tb.Fatalf("insert ruleset %s: %v", name, err)
	}
	return rs.ID
}
