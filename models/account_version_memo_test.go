package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// On SQLite a version read while nothing has committed is answered without
// a query; a change committed by another process (here another store on
// the same file) is seen by the very next read, and so is the filesystem
// it made, in the cached list.
func TestAccountVersionsAreReadAgainOnlyAfterACommit(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	here, there := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	owner, _ := modelstest.Owner(t, there, "memo@example.com")
	account := *owner.AccountID
	sqlite := here.DB().Dialector.Name() == "sqlite"

	first, err := here.AccountVersion(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	queries := here.VersionQueries()
	for range 5 {
		v, err := here.AccountVersion(ctx, account)
		if err != nil {
			t.Fatal(err)
		}
		if v != first {
			t.Fatalf("version moved from %d to %d with nothing committed", first, v)
		}
	}
	if sent := here.VersionQueries() - queries; sqlite && sent != 0 {
		t.Fatalf("%d reads with nothing committed went to the database", sent)
	}

	list := func() []string {
		t.Helper()
		fss, err := here.Filesystems(ctx, owner.Actor())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fs := range fss {
			names = append(names, fs.Name)
		}
		return names
	}
	if names := list(); len(names) != 0 {
		t.Fatalf("filesystems %v before any was made", names)
	}
	for i := range 3 {
		name := fmt.Sprintf("elsewhere-%d", i)
		if _, err := there.CreateFilesystem(ctx, owner.Actor(), models.CreateFilesystemInput{Name: name, Region: "us-east-1"}); err != nil {
			t.Fatal(err)
		}
		want, err := there.AccountVersion(ctx, account)
		if err != nil {
			t.Fatal(err)
		}
		got, err := here.AccountVersion(ctx, account)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("after another process's create: version %d, want %d", got, want)
		}
		if names := list(); len(names) != i+1 {
			t.Fatalf("after %d creates elsewhere the cached list holds %v", i+1, names)
		}
	}
}

// Many readers of many accounts while another store changes them: every
// read that starts after a change committed sees that change's version.
func TestAccountVersionsUnderConcurrentChanges(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	here, there := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	var accounts []string
	for i := range 4 {
		owner, _ := modelstest.Owner(t, there, fmt.Sprintf("busy%d@example.com", i))
		accounts = append(accounts, *owner.AccountID)
	}
	const rounds, readers = 25, 16
	for r := range rounds {
		a := accounts[r%len(accounts)]
		if err := there.AccountChanged(ctx, a); err != nil {
			t.Fatal(err)
		}
		want, err := there.AccountVersion(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, readers)
		for range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if v, err := here.AccountVersion(ctx, a); err != nil {
					errs <- err
				} else if v != want {
					errs <- fmt.Errorf("round %d: version %d, want %d", r, v, want)
				}
				// reads of the other accounts keep the batches mixed
				_, _ = here.AccountVersion(ctx, accounts[(r+1)%len(accounts)])
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}
