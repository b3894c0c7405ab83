package models_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
)

func manyFilesystems(_ *testing.T, cfg *models.Config) { cfg.DefaultFilesystemQuota = 1000 }

// createAll creates n filesystems named prefix-0… from n goroutines at
// once and returns each one's error.
func createAll(ctx context.Context, store *models.Store, actor models.Actor, n int, name func(i int) string) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: name(i), Region: "us-east-1"})
		})
	}
	wg.Wait()
	return errs
}

// Refused creates (a duplicate name, an invalid billing address, the
// quota reached), many at once beside accepted ones, answer their own
// codes and leave every pooled connection out of its transaction: the
// accepted creates around them, and after them, all go through. On
// PostgreSQL each refusal ends a transaction the create had opened with
// its lock (database.DB.WriteAfterLock).
func TestRefusedCreatesLeaveThePoolClean(t *testing.T) {
	f := newFixture(t, manyFilesystems)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: "taken", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	const clients = 64
	errs := createAll(ctx, f.store, f.alice, clients, func(i int) string {
		if i%2 == 0 {
			return "taken"
		}
		return fmt.Sprintf("fresh-%d", i)
	})
	for i, err := range errs {
		if i%2 == 0 {
			wantCode(t, err, models.CodeDuplicate)
		} else if err != nil {
			t.Fatalf("create %d beside duplicates: %v", i, err)
		}
	}

	setAccount := func(in models.UpdateAccountInput) {
		t.Helper()
		if _, err := f.store.UpdateAccount(ctx, models.OperatorActor, "alice@example.com", in); err != nil {
			t.Fatal(err)
		}
	}
	invalid, valid := false, true
	setAccount(models.UpdateAccountInput{BillingAddressValid: &invalid})
	for _, err := range createAll(ctx, f.store, f.alice, clients, func(i int) string { return fmt.Sprintf("unbilled-%d", i) }) {
		wantCode(t, err, models.CodeInvalidAddress)
	}
	quota := 1 + clients/2 // the filesystems alice has
	setAccount(models.UpdateAccountInput{BillingAddressValid: &valid, FilesystemQuota: &quota})
	for _, err := range createAll(ctx, f.store, f.alice, clients, func(i int) string { return fmt.Sprintf("over-%d", i) }) {
		wantCode(t, err, models.CodeQuotaExceeded)
	}

	quota += clients
	setAccount(models.UpdateAccountInput{FilesystemQuota: &quota})
	for i, err := range createAll(ctx, f.store, f.alice, clients, func(i int) string { return fmt.Sprintf("after-%d", i) }) {
		if err != nil {
			t.Fatalf("create %d after the refusals: %v", i, err)
		}
	}
	list, err := f.store.Filesystems(ctx, f.alice)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != quota {
		t.Errorf("%d filesystems, want %d", len(list), quota)
	}
	assertUsageMatchesRows(t, f.store.DB())
}

// Creates whose callers give up at any point (waiting for the account's
// lock, between the lock and the insert, during COMMIT) answer an error
// or succeed, a success is a filesystem that exists, the counts stay equal
// to the rows, and the pool's connections stay usable: many creates after
// them all go through.
func TestAbandonedCreatesLeaveThePoolClean(t *testing.T) {
	f := newFixture(t, manyFilesystems)
	// The pool's connections open first, so that the creates below are
	// abandoned at all points of their work, not while connecting.
	for i, err := range createAll(context.Background(), f.store, f.alice, 32, func(i int) string { return fmt.Sprintf("first-%d", i) }) {
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	const clients = 96
	created := make([]bool, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancelled at a point the test does not choose: nothing is
			// timed, the spread only varies where each create is then.
			stop := time.AfterFunc(time.Duration(rand.IntN(40000))*time.Microsecond, cancel)
			defer stop.Stop()
			_, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: fmt.Sprintf("abandoned-%d", i), Region: "us-east-1"})
			created[i] = err == nil
			if err != nil && ctx.Err() == nil {
				t.Errorf("create %d failed before its caller gave up: %v (%v)", i, err, errors.Unwrap(err))
			}
		})
	}
	wg.Wait()
	abandoned := 0
	for _, ok := range created {
		if !ok {
			abandoned++
		}
	}
	t.Logf("%d of %d creates abandoned", abandoned, clients)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := f.store.Filesystems(ctx, f.alice)
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, fs := range list {
		exists[fs.Name] = true
	}
	for i, ok := range created {
		if ok && !exists[fmt.Sprintf("abandoned-%d", i)] {
			t.Errorf("create %d succeeded but its filesystem is missing", i)
		}
	}
	assertUsageMatchesRows(t, f.store.DB())

	for i, err := range createAll(ctx, f.store, f.alice, 64, func(i int) string { return fmt.Sprintf("later-%d", i) }) {
		if err != nil {
			t.Fatalf("create %d after the abandoned ones: %v", i, err)
		}
	}
	assertUsageMatchesRows(t, f.store.DB())
}
