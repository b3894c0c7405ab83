package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models/modelstest"
)

// Reads of account versions made while one is running wait for one query
// of all their accounts, which starts after the running one ended: a
// change committed (here, by another replica) before that query is seen
// by every read waiting for it, none is answered from the older read.
func TestAccountVersionReadsCoalesceAndAreNeverOlderThanTheRead(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	here, there := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	var accounts []string
	for i := range 3 {
		owner, _ := modelstest.Owner(t, there, fmt.Sprintf("owner%d@example.com", i))
		accounts = append(accounts, *owner.AccountID)
	}
	before, err := here.AccountVersion(ctx, accounts[0])
	if err != nil {
		t.Fatal(err)
	}

	release := here.HoldVersionReads()
	const reads = 30
	type result struct {
		account string
		version int64
		err     error
	}
	results := make(chan result, reads)
	for i := range reads {
		go func() {
			a := accounts[i%len(accounts)]
			v, err := here.AccountVersion(ctx, a)
			results <- result{a, v, err}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, distinct := here.VersionReadsWaiting()
		if n == reads {
			if distinct != len(accounts) {
				t.Fatalf("%d reads wait for %d accounts, want %d", n, distinct, len(accounts))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d reads joined the batch", n, reads)
		}
		time.Sleep(time.Millisecond)
	}
	if err := there.AccountChanged(ctx, accounts[0]); err != nil {
		t.Fatal(err)
	}
	release()

	want := map[string]int64{}
	for _, a := range accounts {
		v, err := there.AccountVersion(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		want[a] = v
	}
	if want[accounts[0]] == before {
		t.Fatal("the change did not change the version")
	}
	for range reads {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.version != want[r.account] {
			t.Errorf("account %s: version %d, want %d (before the change: %d)", r.account, r.version, want[r.account], before)
		}
	}
}

// Versions of more accounts than one query reads come back whole.
func TestAccountVersionBatchOfManyAccounts(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	var accounts []string
	for i := range 70 {
		owner, _ := modelstest.Owner(t, store, fmt.Sprintf("o%d@example.com", i))
		accounts = append(accounts, *owner.AccountID)
	}
	want := map[string]int64{}
	for _, a := range accounts {
		v, err := store.AccountVersion(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		want[a] = v
	}
	release := store.HoldVersionReads()
	got := make(chan error, len(accounts))
	for _, a := range accounts {
		go func() {
			v, err := store.AccountVersion(ctx, a)
			if err == nil && v != want[a] {
				err = fmt.Errorf("account %s: version %d, want %d", a, v, want[a])
			}
			got <- err
		}()
	}
	for {
		if n, _ := store.VersionReadsWaiting(); n == len(accounts) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	release()
	for range accounts {
		if err := <-got; err != nil {
			t.Error(err)
		}
	}
}
