package models_test

import (
	"context"
	"fmt"
	"testing"

	"cloudplane/models"
)

// A filesystem in both file_system_names and file_system_mounts is mounted
// once, where its mount says: the reference's rule, and what
// lambda-cloud-cli sends (it always fills both lists).
func TestLaunchMountWinsOverTheNamedFilesystem(t *testing.T) {
	f := newFixture(t)
	data := f.filesystem(t, f.alice, "data", "us-east-1")
	f.filesystem(t, f.alice, "models", "us-east-1")

	in := launchInput("us-east-1", 1)
	in.FileSystemNames = []string{"data", "models"}
	in.FileSystemMounts = []models.FilesystemMountInput{{MountPoint: "/data/custom", FileSystemID: data}}
	id := f.launch(t, f.alice, in)[0]

	got := map[string]string{}
	for _, m := range f.instance(t, f.alice, id).Mounts {
		if _, twice := got[m.FilesystemName]; twice {
			t.Fatalf("%s mounted twice", m.FilesystemName)
		}
		got[m.FilesystemName] = m.MountPoint
	}
	if want := "map[data:/data/custom models:/lambda/nfs/models]"; fmt.Sprint(got) != want {
		t.Fatalf("mounts %v, want %s", got, want)
	}
}

// What the rule leaves refused: one filesystem at two paths within
// file_system_mounts, and one path for two filesystems, whichever list
// chose it.
func TestLaunchRefusesAmbiguousMounts(t *testing.T) {
	f := newFixture(t)
	data := f.filesystem(t, f.alice, "data", "us-east-1")
	other := f.filesystem(t, f.alice, "other", "us-east-1")
	cases := []struct {
		name  string
		names []string
		mount []models.FilesystemMountInput
		field string
	}{
		{"one filesystem at two paths", []string{"data"},
			[]models.FilesystemMountInput{{MountPoint: "/data/a", FileSystemID: data}, {MountPoint: "/data/b", FileSystemID: data}},
			"file_system_mounts.1.file_system_id"},
		{"one path for two mounts", nil,
			[]models.FilesystemMountInput{{MountPoint: "/data/a", FileSystemID: data}, {MountPoint: "/data/a", FileSystemID: other}},
			"file_system_mounts.1.mount_point"},
		{"a mount at a named filesystem's path", []string{"data"},
			[]models.FilesystemMountInput{{MountPoint: "/lambda/nfs/data", FileSystemID: other}},
			"file_system_mounts.0"},
		{"a named filesystem at a mount's path", []string{"other"},
			[]models.FilesystemMountInput{{MountPoint: "/lambda/nfs/other", FileSystemID: data}},
			"file_system_mounts.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-east-1", 1)
			in.FileSystemNames, in.FileSystemMounts = tc.names, tc.mount
			_, err := f.store.LaunchInstances(context.Background(), f.alice, in)
			wantCode(t, err, models.CodeInvalidParameters)
			if e, _ := models.AsError(err); e.Fields[tc.field] == "" {
				t.Fatalf("%v: want it on %s", err, tc.field)
			}
		})
	}
	if list, _ := f.store.Instances(context.Background(), f.alice); len(list) != 0 {
		t.Fatalf("refused launches left %d instances", len(list))
	}
}
