package models_test

import (
	"context"
	"fmt"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Every field of a listed filesystem, and of one read alone, is what the
// database holds for it (read back by GORM), beside its creator and flag.
func TestFilesystemViewsCarryEveryField(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	actor := owner.Actor()
	for i, region := range []string{"us-east-1", "us-west-1"} {
		f, err := store.CreateFilesystem(ctx, actor, models.CreateFilesystemInput{Name: fmt.Sprintf("fs%d", i), Region: region})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.DB().Model(&models.Filesystem{}).Where("id = ?", f.ID).Update("bytes_used", int64(1)<<40+int64(i)).Error; err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			inst := modelstest.InsertInstance(t, store, models.Instance{AccountID: actor.AccountID, Status: models.InstanceActive})
			modelstest.Mount(t, store, inst.ID, f.ID, f.MountPoint())
		}
	}
	list, err := store.Filesystems(ctx, actor)
	if err != nil || len(list) != 2 {
		t.Fatalf("listed %+v, %v", list, err)
	}
	for i, got := range list {
		var want models.Filesystem
		if err := store.DB().First(&want, "id = ?", got.ID).Error; err != nil {
			t.Fatal(err)
		}
		one, err := store.Filesystem(ctx, actor, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []models.FilesystemView{got, *one} {
			f := v.Filesystem
			if f.ID != want.ID || f.AccountID != want.AccountID || f.Name != want.Name || f.RegionName != want.RegionName ||
				f.CreatedByUserID != want.CreatedByUserID || f.BytesUsed != want.BytesUsed || f.BytesUsed != int64(1)<<40+int64(i) ||
				!f.CreatedAt.Equal(want.CreatedAt) || !f.UpdatedAt.Equal(want.UpdatedAt) || f.CreatedAt.IsZero() ||
				v.CreatorEmail != owner.Email || v.CreatorStatus != owner.Status || v.InUse != (i == 1) {
				t.Fatalf("row %d: %+v, database holds %+v", i, v, want)
			}
		}
	}
}

// BenchmarkLoadFilesystems reads a list of 20 filesystems from the
// database, past the cache, as the first read after a change does.
func BenchmarkLoadFilesystems(b *testing.B) {
	ctx := context.Background()
	store := modelstest.Open(b)
	owner, _ := modelstest.Owner(b, store, "bench@example.com")
	actor := owner.Actor()
	for i := 1; i <= 20; i++ {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, actor, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if list, err := store.LoadFilesystems(ctx, actor.AccountID); err != nil || len(list) != 20 {
			b.Fatalf("listed %d, err %v", len(list), err)
		}
	}
}
