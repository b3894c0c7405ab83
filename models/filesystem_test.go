package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm/logger"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// queryCounter counts the statements a store sends to the database.
type queryCounter struct {
	logger.Interface
	n atomic.Int64
}

func (q *queryCounter) Trace(context.Context, time.Time, func() (string, int64), error) { q.n.Add(1) }

// countQueries counts the statements fn sends through store.
func countQueries(t *testing.T, store *models.Store, fn func()) int64 {
	t.Helper()
	db := store.DB()
	saved := db.Logger
	counter := &queryCounter{Interface: logger.Discard}
	db.Logger = counter
	defer func() { db.Logger = saved }()
	fn()
	return counter.n.Load()
}

// Listing is the hot path: creators and in-use flags are joined in, so the
// number of queries does not grow with the list.
func TestFilesystemsListCostsOneQuery(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	actor := owner.Actor()
	list := func() []models.FilesystemView {
		t.Helper()
		l, err := store.Filesystems(ctx, actor)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if n := countQueries(t, store, func() { list() }); n != 1 {
		t.Fatalf("empty list took %d queries", n)
	}

	statuses := []string{models.InstanceBooting, models.InstanceActive, models.InstanceUnhealthy,
		models.InstanceTerminating, models.InstanceTerminated}
	for i := 0; i < 20; i++ {
		f, err := store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: fmt.Sprintf("fs%02d", i), Region: "us-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		if i < len(statuses) {
			inst := modelstest.InsertInstance(t, store, models.Instance{AccountID: actor.AccountID, Status: statuses[i]})
			modelstest.Mount(t, store, inst.ID, f.ID, f.MountPoint())
		}
	}
	// A creator who has left is still named, with their status.
	store.DB().Model(&models.User{}).Where("id = ?", owner.ID).Update("status", models.UserDeactivated)

	var got []models.FilesystemView
	if n := countQueries(t, store, func() { got = list() }); n != 1 {
		t.Fatalf("listing 20 filesystems took %d queries", n)
	}
	if len(got) != 20 {
		t.Fatalf("listed %d", len(got))
	}
	// Unchanged, the list is served from the cache: only the account's
	// version is read, through a prepared statement that GORM does not see.
	if n := countQueries(t, store, func() { list() }); n != 0 {
		t.Fatalf("listing an unchanged list took %d GORM queries", n)
	}
	for i, f := range got {
		wantInUse := i < 3 // booting, active, unhealthy
		if f.Name != fmt.Sprintf("fs%02d", i) || f.InUse != wantInUse ||
			f.CreatorEmail != owner.Email || f.CreatorStatus != models.UserDeactivated {
			t.Fatalf("row %d: %+v", i, f)
		}
	}
}

// One filesystem reads as the list shows it; another account's, a
// malformed id and a missing one are all simply not found.
func TestFilesystem(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	stranger, _ := modelstest.Owner(t, store, "stranger@example.com")
	f, err := store.CreateFilesystem(ctx, owner.Actor(), models.CreateFilesystemInput{Name: "data", Region: "us-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	inst := modelstest.InsertInstance(t, store, models.Instance{AccountID: *owner.AccountID, Status: models.InstanceActive})
	modelstest.Mount(t, store, inst.ID, f.ID, f.MountPoint())

	got, err := store.Filesystem(ctx, owner.Actor(), f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != f.ID || got.Name != "data" || !got.InUse || got.CreatorEmail != owner.Email {
		t.Fatalf("got %+v", got)
	}
	for name, c := range map[string]struct {
		actor models.Actor
		id    string
	}{
		"another account's": {stranger.Actor(), f.ID},
		"malformed":         {owner.Actor(), "data"},
		"missing":           {owner.Actor(), models.NewID()},
	} {
		if _, err := store.Filesystem(ctx, c.actor, c.id); models.ErrorCode(err) != models.CodeNotFound {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// BenchmarkFilesystems is the list's domain read: ten filesystems.
func BenchmarkFilesystems(b *testing.B) {
	ctx := context.Background()
	store := modelstest.Open(b)
	owner, _ := modelstest.Owner(b, store, "bench@example.com")
	actor := owner.Actor()
	for i := 1; i <= 10; i++ {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, actor, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if list, err := store.Filesystems(ctx, actor); err != nil || len(list) != 10 {
			b.Fatalf("listed %d, err %v", len(list), err)
		}
	}
}

// The list is cached per account, but never served stale: every change,
// made by this store or by another replica on the same database, is seen
// by the next read.
func TestFilesystemsListIsNeverStale(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	here, there := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	owner, _ := modelstest.Owner(t, there, "owner@example.com")
	actor := owner.Actor()
	names := func(store *models.Store) string {
		t.Helper()
		list, err := store.Filesystems(ctx, actor)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range list {
			out = append(out, fmt.Sprintf("%s:%v", f.Name, f.InUse))
		}
		return strings.Join(out, ",")
	}
	expect := func(want string) {
		t.Helper()
		for i, store := range []*models.Store{here, here, there} { // twice: the second read is a cache hit
			if got := names(store); got != want {
				t.Fatalf("read %d: listed %q, want %q", i, got, want)
			}
			got, err := store.FilesystemsEncoded(ctx, actor, namesEncoding)
			if err != nil || string(got) != want {
				t.Fatalf("read %d: encoded %q, %v, want %q", i, got, err, want)
			}
		}
	}
	expect("")

	a, err := there.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: "a", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	expect("a:false")
	if _, err := here.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: "b", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	expect("a:false,b:false")

	inst := modelstest.InsertInstance(t, there, models.Instance{AccountID: actor.AccountID, Status: models.InstanceActive})
	modelstest.Mount(t, there, inst.ID, a.ID, a.MountPoint())
	expect("a:true,b:false")
	if _, err := there.TerminateInstances(ctx, actor, models.InstanceIDsInput{InstanceIDs: []string{inst.ID}}); err != nil {
		t.Fatal(err)
	}
	expect("a:false,b:false")
	if _, err := there.DeleteFilesystem(ctx, actor, a.ID); err != nil {
		t.Fatal(err)
	}
	expect("b:false")
}

// Callers own the slice they are given: changing it changes no later read.
func TestFilesystemsListIsACopy(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	actor := owner.Actor()
	if _, err := store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: "a", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // from the database, then from the cache
		list, err := store.Filesystems(ctx, actor)
		if err != nil || len(list) != 1 || list[0].Name != "a" {
			t.Fatalf("listed %+v, %v", list, err)
		}
		list[0].Name = "changed"
	}
}

// BenchmarkFilesystemsParallel lists the filesystems of ten accounts from
// many goroutines at once, as a busy server does.
func BenchmarkFilesystemsParallel(b *testing.B) {
	ctx := context.Background()
	store := modelstest.Open(b)
	var actors []models.Actor
	for a := range 10 {
		owner, _ := modelstest.Owner(b, store, fmt.Sprintf("bench%d@example.com", a))
		actors = append(actors, owner.Actor())
		for i := 1; i <= 10; i++ {
			in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", i), Region: "us-east-1"}
			if _, err := store.CreateFilesystem(ctx, owner.Actor(), in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	b.SetParallelism(32)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		actor := actors[next.Add(1)%int64(len(actors))]
		for pb.Next() {
			if list, err := store.Filesystems(ctx, actor); err != nil || len(list) != 10 {
				b.Fatalf("listed %d, err %v", len(list), err)
			}
		}
	})
}

// namesEncoding encodes a list as its names and in-use flags.
var namesEncoding = models.NewListEncoding(func(list []models.FilesystemView) []byte {
	var out []string
	for _, f := range list {
		out = append(out, fmt.Sprintf("%s:%v", f.Name, f.InUse))
	}
	return []byte(strings.Join(out, ","))
})

// A list is encoded once per change, and each encoding is kept apart.
func TestFilesystemsEncodedOncePerChange(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	actor := owner.Actor()
	var calls int
	counting := models.NewListEncoding(func(list []models.FilesystemView) []byte {
		calls++
		return []byte(fmt.Sprint(len(list)))
	})
	read := func(enc *models.ListEncoding[models.FilesystemView], want string) {
		t.Helper()
		if got, err := store.FilesystemsEncoded(ctx, actor, enc); err != nil || string(got) != want {
			t.Fatalf("encoded %q, %v, want %q", got, err, want)
		}
	}
	read(counting, "0")
	read(counting, "0")
	if _, err := store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: "a", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	read(counting, "1")
	read(namesEncoding, "a:false")
	read(counting, "1")
	if calls != 3 {
		t.Fatalf("encoded %d times for two versions and an encoding in between, want 3", calls)
	}
}
