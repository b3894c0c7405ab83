package models_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// instanceListText encodes a list as id:status:mounts:rulesets lines, and
// counts how often it runs: once per list the cache reads.
type instanceListText struct {
	calls atomic.Int64
	enc   *models.ListEncoding[models.InstanceDetail]
}

func newInstanceListText() *instanceListText {
	e := &instanceListText{}
	e.enc = models.NewListEncoding(func(list []models.InstanceDetail) []byte {
		e.calls.Add(1)
		var b strings.Builder
		for _, d := range list {
			var mounts []string
			for _, m := range d.Mounts {
				mounts = append(mounts, m.FilesystemName)
			}
			fmt.Fprintf(&b, "%s:%s:%s:%s\n", d.ID, d.Status, strings.Join(mounts, ","), strings.Join(d.RulesetIDs, ","))
		}
		return []byte(b.String())
	})
	return e
}

func (e *instanceListText) read(t testing.TB, store *models.Store, actor models.Actor) string {
	t.Helper()
	body, err := store.InstancesEncoded(context.Background(), actor, e.enc)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// The hand scan reads what GORM's Find read, JSON columns included: null
// and empty arrays, escapes, and the nullable columns set and unset.
func TestInstanceListScanMatchesGORM(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	past, future := f.store.Now().Add(-time.Hour), f.store.Now().Add(time.Hour)
	image := "img-1"
	for _, inst := range []models.Instance{
		{Status: models.InstanceActive, SSHKeyNames: []string{"a", `b "quoted" \ é`}, Tags: []models.InstanceTag{{Key: "k", Value: "<v>"}}},
		{Status: models.InstanceBooting, StatusUntil: &future, ImageID: &image},
		{Status: models.InstanceTerminating, StatusUntil: &future, TerminatedAt: &future, Name: "日本 \u2028"},
		{Status: models.InstanceUnhealthy, Tags: []models.InstanceTag{}},
		{Status: models.InstanceTerminating, StatusUntil: &past, TerminatedAt: &past}, // terminated: not listed
	} {
		inst.AccountID = f.alice.AccountID
		modelstest.InsertInstance(t, f.store, inst)
	}
	// InsertInstance writes an empty array for nil names; GORM writes null.
	if err := f.store.DB().Exec("UPDATE instances SET ssh_key_names = 'null' WHERE status = ?", models.InstanceUnhealthy).Error; err != nil {
		t.Fatal(err)
	}
	var want []models.Instance
	err := f.store.DB().Where("account_id = ? AND NOT (status = ? AND status_until <= ?)", f.alice.AccountID,
		models.InstanceTerminating, f.store.Now()).Order("created_at, id").Find(&want).Error
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.store.Instances(ctx, f.alice)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || len(want) != 4 {
		t.Fatalf("%d instances listed, %d in the table", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].Instance, want[i]) {
			t.Errorf("instance %d:\n got %#v\nwant %#v", i, got[i].Instance, want[i])
		}
	}
	for _, d := range got {
		if d.Status == models.InstanceUnhealthy && (d.SSHKeyNames != nil || d.Tags == nil) {
			t.Errorf("null and empty arrays: %#v %#v", d.SSHKeyNames, d.Tags)
		}
	}
}

// A cached list is served until the first status among its rows ends, and
// read again at that instant, though nothing was written.
func TestInstanceListCacheEndsWithAStatus(t *testing.T) {
	f := newFixture(t)
	enc := newInstanceListText()
	id := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	booting := enc.read(t, f.store, f.alice)
	if !strings.Contains(booting, id+":booting") {
		t.Fatalf("after the launch: %q", booting)
	}
	f.clock.Advance(f.cfg.InstanceBootTime - time.Microsecond)
	if got := enc.read(t, f.store, f.alice); got != booting || enc.calls.Load() != 1 {
		t.Fatalf("before the boot time: %q, %d encodings", got, enc.calls.Load())
	}
	f.clock.Advance(time.Microsecond)
	if got := enc.read(t, f.store, f.alice); !strings.Contains(got, id+":active") {
		t.Fatalf("at the boot time: %q", got)
	}
	// An active list has no end: the clock alone reads it no more.
	calls := enc.calls.Load()
	f.clock.Advance(24 * time.Hour)
	if enc.read(t, f.store, f.alice); enc.calls.Load() != calls {
		t.Fatalf("an active list was read again: %d encodings", enc.calls.Load())
	}

	if _, err := f.store.TerminateInstances(context.Background(), f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if got := enc.read(t, f.store, f.alice); !strings.Contains(got, id+":terminating") {
		t.Fatalf("after the terminate: %q", got)
	}
	f.clock.Advance(f.cfg.InstanceTerminateTime)
	if got := enc.read(t, f.store, f.alice); got != "" {
		t.Fatalf("at the terminate time: %q", got)
	}
}

// Deleting a filesystem or a ruleset that a terminating instance still
// shows (it no longer holds them) shows at once.
func TestInstanceListShowsDeletedAttachments(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	enc := newInstanceListText()
	fs := f.filesystem(t, f.alice, "data", "us-east-1")
	rs := f.ruleset(t, f.alice, "web", "us-east-1")
	in := launchInput("us-east-1", 1)
	in.FileSystemNames, in.FirewallRulesets = []string{"data"}, []models.RulesetRef{{ID: rs}}
	id := f.launch(t, f.alice, in)[0]
	if _, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if got, want := enc.read(t, f.store, f.alice), id+":terminating:data:"+rs+"\n"; got != want {
		t.Fatalf("terminating: %q, want %q", got, want)
	}
	if _, err := f.store.DeleteFilesystem(ctx, f.alice, fs); err != nil {
		t.Fatal(err)
	}
	if got, want := enc.read(t, f.store, f.alice), id+":terminating::"+rs+"\n"; got != want {
		t.Fatalf("filesystem deleted: %q, want %q", got, want)
	}
	if _, err := f.store.DeleteFirewallRuleset(ctx, f.alice, rs, models.Precondition{}); err != nil {
		t.Fatal(err)
	}
	if got, want := enc.read(t, f.store, f.alice), id+":terminating::\n"; got != want {
		t.Fatalf("ruleset deleted: %q, want %q", got, want)
	}
}

// A second store on the same database, as another replica, sees a launch
// the first made as soon as it returned, though it had the list cached.
func TestInstanceListSeesOtherStoresLaunch(t *testing.T) {
	f := newFixture(t)
	other := modelstest.OpenAt(t, f.dsn, models.WithClock(f.clock.Now), models.WithConfig(f.cfg))
	enc := newInstanceListText()
	if got := enc.read(t, other, f.alice); got != "" {
		t.Fatalf("before: %q", got)
	}
	id := f.launch(t, f.alice, launchInput("us-east-1", 1))[0]
	if got := enc.read(t, other, f.alice); !strings.Contains(got, id+":booting") {
		t.Fatalf("the other store's list after the launch: %q", got)
	}
}

// Readers never see a list older than a write that returned before their
// read began, while writers launch and terminate and readers refill the
// cache all the time.
func TestInstanceListNeverStaleUnderConcurrency(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=1000"))
	ctx := context.Background()
	enc := newInstanceListText()
	const writers, readers, rounds = 3, 6, 6
	var launched, terminated sync.Map // id -> true, stored once the write returned
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	done := make(chan struct{})
	for range writers {
		wg.Go(func() {
			for range rounds {
				ids, err := f.store.LaunchInstances(ctx, f.alice, launchInput("us-east-1", 1))
				if err != nil {
					errs <- err
					return
				}
				launched.Store(ids[0], true)
				if _, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: ids}); err != nil {
					errs <- err
					return
				}
				terminated.Store(ids[0], true)
			}
		})
	}
	var readerWG sync.WaitGroup
	for range readers {
		readerWG.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := checkNotStale(ctx, f.store, f.alice, enc, &launched, &terminated); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readerWG.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := checkNotStale(ctx, f.store, f.alice, enc, &launched, &terminated); err != nil {
		t.Fatal(err)
	}
}

// checkNotStale reads the list and checks that every launch and terminate
// that had returned before the read began shows in it. The clock stands
// still, so terminated instances stay listed, terminating.
func checkNotStale(ctx context.Context, store *models.Store, actor models.Actor, enc *instanceListText, launched, terminated *sync.Map) error {
	var ids []string
	launched.Range(func(id, _ any) bool { ids = append(ids, id.(string)); return true })
	gone := map[string]bool{}
	terminated.Range(func(id, _ any) bool { gone[id.(string)] = true; return true })
	body, err := store.InstancesEncoded(ctx, actor, enc.enc)
	if err != nil {
		return err
	}
	for _, id := range ids {
		// A terminate that returned after the snapshot may show too.
		if !strings.Contains(string(body), id+":terminating:") && (gone[id] || !strings.Contains(string(body), id+":booting:")) {
			return fmt.Errorf("instance %s (terminated: %v) is stale in a list read after the write returned:\n%s", id, gone[id], body)
		}
	}
	return nil
}
