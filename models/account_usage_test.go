package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"gorm.io/gorm"

	"cloudplane/models"
)

// usageTables are the tables whose rows account_usage counts.
var usageTables = []string{"filesystems", "firewall_rulesets", "fabric_partitions", "webhook_endpoints"}

// assertUsageMatchesRows fails the test unless account_usage holds, for
// every account and counted table, the number of rows there.
func assertUsageMatchesRows(t *testing.T, db *gorm.DB) {
	t.Helper()
	for _, table := range usageTables {
		var drift []string
		err := db.Raw(`SELECT a.id || ': ' || coalesce(u.used, 0) || ' counted, ' || (SELECT count(*) FROM `+table+` r WHERE r.account_id = a.id) || ' rows'
			FROM accounts a LEFT JOIN account_usage u ON u.account_id = a.id AND u.resource = ?
			WHERE coalesce(u.used, 0) <> (SELECT count(*) FROM `+table+` r WHERE r.account_id = a.id)`, table).Scan(&drift).Error
		if err != nil {
			t.Fatal(err)
		}
		if len(drift) > 0 {
			t.Errorf("%s: %v", table, drift)
		}
	}
}

// Creates, refusals (quota, duplicate name), deletes and a delete of an
// object in use, from many goroutines on one account at once, leave the
// counts equal to the rows, and the quota holds exactly.
func TestAccountUsageFollowsConcurrentChanges(t *testing.T) {
	const quota = 10
	f := newFixture(t, func(_ *testing.T, cfg *models.Config) {
		cfg.DefaultFilesystemQuota = quota
		cfg.DefaultRulesetQuota = quota
	})
	ctx := context.Background()
	assertUsageMatchesRows(t, f.store.DB())
	const clients = 24
	var wg sync.WaitGroup
	created := make(chan string, clients)
	errs := make(chan error, 4*clients)
	for i := range clients {
		wg.Go(func() {
			// Two goroutines ask for each name: one of them gets it.
			fs, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i/2), Region: "us-east-1"})
			switch code := models.ErrorCode(err); {
			case err == nil:
				created <- fs.ID
			case code != models.CodeQuotaExceeded && code != models.CodeDuplicate:
				errs <- err
			}
		})
		wg.Go(func() {
			_, err := f.store.CreateFirewallRuleset(ctx, f.alice, models.CreateFirewallRulesetInput{
				Name: fmt.Sprintf("rs-%d", i), Region: "us-east-1", Rules: []models.FirewallRule{}})
			if err != nil && models.ErrorCode(err) != models.CodeQuotaExceeded {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(created)
	var ids []string
	for id := range created {
		ids = append(ids, id)
	}
	if len(ids) != quota {
		t.Fatalf("%d filesystems created under a quota of %d", len(ids), quota)
	}
	assertUsageMatchesRows(t, f.store.DB())

	// Deletes beside creates: each delete frees a place a create takes.
	for i, id := range ids[:5] {
		wg.Go(func() {
			if _, err := f.store.DeleteFilesystem(ctx, f.alice, id); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			_, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: fmt.Sprintf("again-%d", i), Region: "us-east-1"})
			if err != nil && models.ErrorCode(err) != models.CodeQuotaExceeded {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	assertUsageMatchesRows(t, f.store.DB())

	// Until the deletes are all in, a create may be refused; afterwards
	// the account is back at its quota after at most 5 more.
	for i := 0; i < 5; i++ {
		_, _ = f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: fmt.Sprintf("fill-%d", i), Region: "us-east-1"})
	}
	if _, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: "one-too-many", Region: "us-east-1"}); models.ErrorCode(err) != models.CodeQuotaExceeded {
		t.Fatalf("a create past the quota: %v", err)
	}
	fss, err := f.store.Filesystems(ctx, f.alice)
	if err != nil || len(fss) != quota {
		t.Fatalf("%d filesystems (%v), want %d", len(fss), err, quota)
	}
	assertUsageMatchesRows(t, f.store.DB())
	// Bob's count is his own.
	if _, err := f.store.CreateFilesystem(ctx, f.bob, models.CreateFilesystemInput{Name: "fs-0", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	assertUsageMatchesRows(t, f.store.DB())
}
