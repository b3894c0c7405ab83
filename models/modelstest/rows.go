package modelstest

import (
	"context"
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
	changed(tb, store, fs.AccountID)
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
	changed(tb, store, rs.AccountID)
	return rs.ID
}

// changed tells the store that rows of the account were written around
// its operations, as they would have bumped its version themselves.
func changed(tb testing.TB, store *models.Store, accountID string) {
	tb.Helper()
	if err := store.AccountChanged(context.Background(), accountID); err != nil {
		tb.Fatalf("mark account changed: %v", err)
	}
}

// instanceChanged is changed for the account of an instance.
func instanceChanged(tb testing.TB, store *models.Store, instanceID string) {
	tb.Helper()
	var inst models.Instance
	if err := store.DB().Select("account_id").Where("id = ?", instanceID).Take(&inst).Error; err != nil {
		tb.Fatalf("find instance %s: %v", instanceID, err)
	}
	changed(tb, store, inst.AccountID)
}
