package models_test

import (
	"context"
	"fmt"
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
	for i, f := range got {
		wantInUse := i < 3 // booting, active, unhealthy
		if f.Name != fmt.Sprintf("fs%02d", i) || f.InUse != wantInUse ||
			f.CreatorEmail != owner.Email || f.CreatorStatus != models.UserDeactivated {
			t.Fatalf("row %d: %+v", i, f)
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
