package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Another account's instances are indistinguishable from missing ones, and
// one unknown id fails the whole request without changing the others.
func TestInstanceOperationsStayInTheAccount(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mine := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	bobs := f.launch(t, f.bob, launchInput("us-east-1", 1))[0]
	f.clock.Advance(f.cfg.InstanceBootTime)
	name := "renamed"

	for _, id := range []string{bobs, "not-an-id", models.NewID()} {
		_, err := f.store.Instance(ctx, f.alice, id)
		wantCode(t, err, models.CodeNotFound)
		_, err = f.store.UpdateInstance(ctx, f.alice, id, models.UpdateInstanceInput{Name: &name})
		wantCode(t, err, models.CodeNotFound)
		_, err = f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{mine, id}})
		wantCode(t, err, models.CodeNotFound)
		_, err = f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{mine, id}})
		wantCode(t, err, models.CodeNotFound)
	}
	if d := f.instance(t, f.alice, mine); d.Status != models.InstanceActive || d.Name != "" {
		t.Fatalf("a refused request changed the instance: %+v", d.Instance)
	}
	if d := f.instance(t, f.bob, bobs); d.Status != models.InstanceActive {
		t.Fatalf("bob's instance changed: %s", d.Status)
	}
	if n := len(f.events(t, f.alice, "instance")); n != 1 {
		t.Fatalf("%d events, want only the launch", n)
	}
}

// A restart that cannot restart one of its instances restarts none.
func TestRestartIsAllOrNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	active := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	f.clock.Advance(f.cfg.InstanceBootTime)
	booting := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	_, err := f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{active, booting}})
	wantCode(t, err, models.CodeConflict)
	if d := f.instance(t, f.alice, active); d.Status != models.InstanceActive {
		t.Fatalf("active instance restarted anyway: %s", d.Status)
	}
	_, err = f.store.RestartInstances(ctx, f.alice, models.InstanceIDsInput{})
	wantCode(t, err, models.CodeInvalidParameters)
}

// A write stores the status a transition has reached, so that queries on
// the stored status (capacity, filesystems in use) need no clock.
func TestRenamePersistsTheResolvedStatus(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	f.clock.Advance(f.cfg.InstanceBootTime)
	name := "gpu-box"
	d, err := f.store.UpdateInstance(ctx, f.alice, id, models.UpdateInstanceInput{Name: &name})
	if err != nil || d.Name != name || d.Status != models.InstanceActive {
		t.Fatalf("rename: %v %+v", err, d)
	}
	var row models.Instance
	if err := f.store.DB().Where("id = ?", id).Take(&row).Error; err != nil {
		t.Fatal(err)
	}
	if row.Status != models.InstanceActive || row.StatusUntil != nil || row.Name != name {
		t.Fatalf("stored %s until %v name %q", row.Status, row.StatusUntil, row.Name)
	}
	// The same name again, or no name, changes nothing and records nothing.
	for _, in := range []models.UpdateInstanceInput{{Name: &name}, {}} {
		if _, err := f.store.UpdateInstance(ctx, f.alice, id, in); err != nil {
			t.Fatal(err)
		}
	}
	long := fmt.Sprintf("%065d", 0)
	_, err = f.store.UpdateInstance(ctx, f.alice, id, models.UpdateInstanceInput{Name: &long})
	wantCode(t, err, models.CodeInvalidParameters)
	evs := f.events(t, f.alice, "instance")
	if len(evs) != 2 || evs[1].Action != "updated" || evs[1].AdditionalDetails.Map()["name"] != name {
		t.Fatalf("events %+v", evs)
	}
}

// Capacity spans accounts: parallel launches from several accounts never
// run more instances than the region holds, on SQLite and PostgreSQL.
func TestConcurrentLaunchesNeverExceedCapacity(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=3"))
	actors := []models.Actor{f.alice, f.bob}
	for i := range 3 {
		actors = append(actors, f.owner(t, fmt.Sprintf("user%d@example.com", i)))
	}
	const launches = 10
	var wg sync.WaitGroup
	errs := make([]error, launches)
	for i := range launches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.store.LaunchInstances(context.Background(), actors[i%len(actors)], launchInput("us-east-1", 1))
		}()
	}
	wg.Wait()
	succeeded := 0
	for _, err := range errs {
		switch models.ErrorCode(err) {
		case models.CodeInsufficientCap:
		default:
			if err != nil {
				t.Fatalf("unexpected error on %s: %v", modelstest.Backend(), err)
			}
			succeeded++
		}
	}
	var running int64
	f.store.DB().Model(&models.Instance{}).Where("status = ?", models.InstanceBooting).Count(&running)
	if succeeded != 3 || running != 3 {
		t.Fatalf("%d launches succeeded and %d instances run on %s, want 3", succeeded, running, modelstest.Backend())
	}
}

// Terminating frees capacity at once; the terminating instance does not
// hold its slot until it is gone.
func TestTerminateFreesCapacity(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=1"))
	ctx := context.Background()
	id := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	_, err := f.store.LaunchInstances(ctx, f.bob, launchInput("us-east-1", 1))
	wantCode(t, err, models.CodeInsufficientCap)
	if _, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	f.launch(t, f.bob, launchInput("us-east-1", 1))
}

// Changes to one account's filesystems and instances, made at once, each
// bump the account's version in their transaction; that adds no lock
// order that could deadlock (PostgreSQL would answer a retryable
// conflict), and the cached list ends equal to the database's.
func TestConcurrentChangesKeepTheListExact(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=50"))
	ctx := context.Background()
	for _, name := range []string{"shared", "gone"} {
		in := models.CreateFilesystemInput{Name: name, Region: "us-east-1"}
		if _, err := f.store.CreateFilesystem(ctx, f.alice, in); err != nil {
			t.Fatal(err)
		}
	}
	list := func(store *models.Store) string {
		t.Helper()
		l, err := store.Filesystems(ctx, f.alice)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(l)
	}
	mounting := launchInput("us-east-1", 1)
	mounting.FileSystemNames = []string{"shared"}
	running := f.launch(t, f.alice, mounting)
	list(f.store) // warm the cache

	const workers = 12
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 4 {
			case 0:
				in := models.CreateFilesystemInput{Name: fmt.Sprintf("new-%d", i), Region: "us-east-1"}
				_, errs[i] = f.store.CreateFilesystem(ctx, f.alice, in)
			case 1:
				_, errs[i] = f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: running})
			case 2:
				_, errs[i] = f.store.LaunchInstances(ctx, f.alice, mounting)
			case 3:
				var l []models.FilesystemView
				if l, errs[i] = f.store.Filesystems(ctx, f.alice); errs[i] == nil {
					for _, fs := range l {
						if fs.Name == "gone" {
							_, errs[i] = f.store.DeleteFilesystem(ctx, f.alice, fs.ID)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if code := models.ErrorCode(err); err != nil && code != models.CodeNotFound {
			t.Fatalf("worker %d on %s: %v", i, modelstest.Backend(), err)
		}
	}
	if cached, fresh := list(f.store), list(modelstest.OpenAt(t, f.dsn)); cached != fresh {
		t.Fatalf("cached list\n%s\nthe database's\n%s", cached, fresh)
	}
}
