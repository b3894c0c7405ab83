package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func (f *fixture) partition(t *testing.T, owner models.Actor, name, region string) *models.FabricPartition {
	t.Helper()
	p, err := f.store.CreateFabricPartition(context.Background(), owner, models.CreateFabricPartitionInput{Name: name, Region: region})
	if err != nil {
		t.Fatalf("create partition %s: %v", name, err)
	}
	return p
}

func TestFabricPartitionLifecycle(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := f.partition(t, f.alice, "training-one", "us-east-1")
	if !models.IsID(p.ID) || p.WorkspaceID != models.DefaultWorkspaceID(f.alice.AccountID) ||
		p.Name != "training-one" || p.RegionName != "us-east-1" || !p.CreatedAt.Equal(f.clock.Now()) {
		t.Fatalf("created %+v", p)
	}
	// The default workspace named explicitly is the same workspace.
	named, err := f.store.CreateFabricPartition(ctx, f.alice, models.CreateFabricPartitionInput{
		Name: "training-two", Region: "us-east-1", WorkspaceID: p.WorkspaceID})
	if err != nil || named.WorkspaceID != p.WorkspaceID {
		t.Fatalf("create in the default workspace by id: %+v, %v", named, err)
	}

	f.clock.Advance(time.Second) // events are ordered by time
	renamed, err := f.store.RenameFabricPartition(ctx, f.alice, p.ID, models.RenameFabricPartitionInput{Name: "inference"})
	if err != nil || renamed.Name != "inference" || renamed.ID != p.ID {
		t.Fatalf("rename: %+v, %v", renamed, err)
	}
	got, err := f.store.FabricPartition(ctx, f.alice, p.ID)
	if err != nil || got.Name != "inference" || got.RegionName != "us-east-1" {
		t.Fatalf("after rename: %+v, %v", got, err)
	}
	// Renaming to the current name is no change, and records none.
	if _, err := f.store.RenameFabricPartition(ctx, f.alice, p.ID, models.RenameFabricPartitionInput{Name: "inference"}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if _, err := f.store.DeleteFabricPartition(ctx, f.alice, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.FabricPartition(ctx, f.alice, p.ID)
	wantCode(t, err, models.CodeFabricPartitionNotFound)
	_, err = f.store.DeleteFabricPartition(ctx, f.alice, p.ID)
	wantCode(t, err, models.CodeFabricPartitionNotFound)

	evs := f.events(t, f.alice, "fabric_partition")
	var actions []string
	for _, e := range evs {
		actions = append(actions, e.Action)
		if len(e.ResourceLRNs) != 1 || !strings.HasPrefix(e.ResourceLRNs[0], "lrn:cloud:fabric_partition:") {
			t.Fatalf("event %+v names %v", e.Action, e.ResourceLRNs)
		}
	}
	if strings.Join(actions, ",") != "created,created,updated,deleted" {
		t.Fatalf("audit actions %v", actions)
	}
	if d := evs[2].AdditionalDetails.Map(); d["name"] != "inference" || d["previous_name"] != "training-one" {
		t.Fatalf("rename event details %v", d)
	}
	list, err := f.store.FabricPartitions(ctx, f.alice)
	if err != nil || len(list) != 1 || list[0].Name != "training-two" {
		t.Fatalf("list %+v, %v", list, err)
	}
}

func TestFabricPartitionRefusals(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := f.partition(t, f.alice, "shared", "us-east-1")
	other := f.partition(t, f.alice, "other", "us-east-1")

	create := func(in models.CreateFabricPartitionInput) error {
		_, err := f.store.CreateFabricPartition(ctx, f.alice, in)
		return err
	}
	for _, tc := range []struct {
		in    models.CreateFabricPartitionInput
		field string
	}{
		{models.CreateFabricPartitionInput{Region: "us-east-1"}, "name"},
		{models.CreateFabricPartitionInput{Name: "Upper", Region: "us-east-1"}, "name"},
		{models.CreateFabricPartitionInput{Name: "-dash", Region: "us-east-1"}, "name"},
		{models.CreateFabricPartitionInput{Name: strings.Repeat("a", 33), Region: "us-east-1"}, "name"},
		{models.CreateFabricPartitionInput{Name: "ok"}, "region"},
		{models.CreateFabricPartitionInput{Name: "ok", Region: "mars-north-1"}, "region"},
		{models.CreateFabricPartitionInput{Name: "ok", Region: "us-east-1", WorkspaceID: models.NewID()}, "workspace_id"},
		{models.CreateFabricPartitionInput{Name: "ok", Region: "us-east-1", WorkspaceID: models.DefaultWorkspaceID(f.bob.AccountID)}, "workspace_id"},
	} {
		err := create(tc.in)
		wantCode(t, err, models.CodeInvalidParameters)
		if e, _ := models.AsError(err); e.Fields[tc.field] == "" {
			t.Fatalf("%+v: fields %v, want %s", tc.in, e.Fields, tc.field)
		}
	}
	if err := create(models.CreateFabricPartitionInput{Name: "a" + strings.Repeat("0", 31), Region: "us-east-1"}); err != nil {
		t.Fatalf("32 characters: %v", err)
	}

	// Names are unique per account and region.
	wantCode(t, create(models.CreateFabricPartitionInput{Name: "shared", Region: "us-east-1"}), models.CodeDuplicate)
	f.partition(t, f.alice, "shared", "us-west-1")
	f.partition(t, f.bob, "shared", "us-east-1")
	_, err := f.store.RenameFabricPartition(ctx, f.alice, other.ID, models.RenameFabricPartitionInput{Name: "shared"})
	wantCode(t, err, models.CodeDuplicate)
	_, err = f.store.RenameFabricPartition(ctx, f.alice, other.ID, models.RenameFabricPartitionInput{Name: "No"})
	wantCode(t, err, models.CodeInvalidParameters)

	// Another account's partition does not exist for bob.
	for _, id := range []string{p.ID, models.NewID(), "nope", strings.ToUpper(p.ID)} {
		_, err = f.store.RenameFabricPartition(ctx, f.bob, id, models.RenameFabricPartitionInput{Name: "mine"})
		wantCode(t, err, models.CodeFabricPartitionNotFound)
		_, err = f.store.DeleteFabricPartition(ctx, f.bob, id)
		wantCode(t, err, models.CodeFabricPartitionNotFound)
		_, err = f.store.FabricPartition(ctx, f.bob, id)
		wantCode(t, err, models.CodeFabricPartitionNotFound)
	}
	if got, _ := f.store.FabricPartition(ctx, f.alice, p.ID); got == nil || got.Name != "shared" {
		t.Fatalf("alice's partition changed: %+v", got)
	}

	// Quota: 4 made so far; deleting frees a place.
	quota := 4
	if _, err := f.store.UpdateAccount(ctx, models.OperatorActor, "alice@example.com",
		models.UpdateAccountInput{FabricPartitionQuota: &quota}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, create(models.CreateFabricPartitionInput{Name: "more", Region: "us-east-1"}), models.CodeQuotaExceeded)
	if _, err := f.store.DeleteFabricPartition(ctx, f.alice, other.ID); err != nil {
		t.Fatal(err)
	}
	f.partition(t, f.alice, "more", "us-east-1")

	// Refusals record nothing: 5 creates, 1 delete.
	if n := len(f.events(t, f.alice, "fabric_partition")); n != 6 {
		t.Fatalf("%d audit events", n)
	}
}

// Many creates at once never exceed the quota: the account lock makes
// each count the others. Renames racing for one name leave exactly one
// winner: the unique index decides.
func TestConcurrentFabricPartitionWrites(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	const quota, clients = 5, 24
	if _, err := f.store.UpdateAccount(ctx, models.OperatorActor, "alice@example.com",
		models.UpdateAccountInput{FabricPartitionQuota: ptr(quota)}); err != nil {
		t.Fatal(err)
	}
	codes := race(clients, func(i int) error {
		_, err := f.store.CreateFabricPartition(ctx, f.alice, models.CreateFabricPartitionInput{
			Name: fmt.Sprintf("p%d", i), Region: "us-east-1"})
		return err
	})
	if codes["ok"] != quota || codes[string(models.CodeQuotaExceeded)] != clients-quota {
		t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
	}
	list, err := f.store.FabricPartitions(ctx, f.alice)
	if err != nil || len(list) != quota {
		t.Fatalf("%d partitions (%v), quota %d", len(list), err, quota)
	}
	if n := len(f.events(t, f.alice, "fabric_partition")); n != quota {
		t.Fatalf("%d audit events for %d creates", n, quota)
	}

	codes = race(quota, func(i int) error {
		_, err := f.store.RenameFabricPartition(ctx, f.alice, list[i].ID, models.RenameFabricPartitionInput{Name: "winner"})
		return err
	})
	if codes["ok"] != 1 || codes[string(models.CodeDuplicate)] != quota-1 {
		t.Fatalf("rename outcomes %v on %s", codes, modelstest.Backend())
	}
}

// race runs n calls at once and counts the outcomes: "ok", else the code.
func race(n int, call func(i int) error) map[string]int {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = call(i)
		}()
	}
	close(start)
	wg.Wait()
	counts := map[string]int{}
	for _, err := range errs {
		if err == nil {
			counts["ok"]++
		} else {
			counts[string(models.ErrorCode(err))]++
		}
	}
	return counts
}
