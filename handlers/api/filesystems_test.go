package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type filesystemOut struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	MountPoint string `json:"mount_point"`
	Created    string `json:"created"`
	CreatedBy  struct {
		ID, Email, Status string
	} `json:"created_by"`
	IsInUse   bool          `json:"is_in_use"`
	Region    models.Region `json:"region"`
	BytesUsed int64         `json:"bytes_used"`
}

func (e *env) createFilesystem(key, name string) filesystemOut {
	e.t.Helper()
	var f filesystemOut
	e.doAs(key, http.MethodPost, "/api/v1/filesystems", map[string]any{"name": name, "region": "us-east-1"}).
		expect(http.StatusOK).data(&f)
	return f
}

func (e *env) filesystems() []filesystemOut {
	e.t.Helper()
	var list []filesystemOut
	e.do(http.MethodGet, "/api/v1/filesystems", nil).expect(http.StatusOK).data(&list)
	return list
}

func TestFilesystemLifecycle(t *testing.T) {
	e := newEnv(t)
	f := e.createFilesystem(e.key, "my-fs1")
	want := filesystemOut{ID: f.ID, Name: "my-fs1", MountPoint: "/lambda/nfs/my-fs1",
		Created: e.clock.Now().UTC().Format(time.RFC3339),
		Region:  models.Region{Name: "us-east-1", Description: "Virginia, USA"}}
	want.CreatedBy.ID, want.CreatedBy.Email, want.CreatedBy.Status = e.owner.ID, e.owner.Email, models.UserActive
	if !models.IsID(f.ID) || f != want {
		t.Fatalf("created %+v\nwant    %+v", f, want)
	}
	if list := e.filesystems(); len(list) != 1 || list[0] != want {
		t.Fatalf("listed %+v", list)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 1 {
		t.Fatalf("%d audit events after create", n)
	}

	var deleted struct {
		DeletedIDs []string `json:"deleted_ids"`
	}
	e.do(http.MethodDelete, "/api/v1/filesystems/"+f.ID, nil).expect(http.StatusOK).data(&deleted)
	if len(deleted.DeletedIDs) != 1 || deleted.DeletedIDs[0] != f.ID {
		t.Fatalf("deleted %+v", deleted)
	}
	if list := e.filesystems(); len(list) != 0 {
		t.Fatalf("listed after delete %+v", list)
	}
	e.do(http.MethodDelete, "/api/v1/filesystems/"+f.ID, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 2 {
		t.Fatalf("%d audit events after delete", n)
	}
}

func TestDeprecatedFilesystemsPathHasTheSameBody(t *testing.T) {
	e := newEnv(t)
	e.createFilesystem(e.key, "beta")
	e.createFilesystem(e.key, "alpha")
	current := e.do(http.MethodGet, "/api/v1/filesystems", nil).expect(http.StatusOK)
	deprecated := e.do(http.MethodGet, "/api/v1/file-systems", nil).expect(http.StatusOK)
	if !bytes.Equal(current.Body, deprecated.Body) {
		t.Fatalf("bodies differ:\n%s\n%s", current.Body, deprecated.Body)
	}
	if list := e.filesystems(); list[0].Name != "alpha" || list[1].Name != "beta" {
		t.Fatalf("not listed by name: %+v", list)
	}
}

func TestCreateFilesystemRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name  string
		body  any
		field string // named in the message
	}{
		{"no body", "", ""},
		{"not an object", "[]", ""},
		{"malformed", `{"name":`, ""},
		{"name missing", map[string]any{"region": "us-east-1"}, "name"},
		{"name not a string", map[string]any{"name": 7, "region": "us-east-1"}, "name"},
		{"name too long", map[string]any{"name": "a" + strings.Repeat("b", 60), "region": "us-east-1"}, "name"},
		{"name starts with a digit", map[string]any{"name": "1fs", "region": "us-east-1"}, "name"},
		{"name starts with a hyphen", map[string]any{"name": "-fs", "region": "us-east-1"}, "name"},
		{"name with an underscore", map[string]any{"name": "my_fs", "region": "us-east-1"}, "name"},
		{"name with a space", map[string]any{"name": "my fs", "region": "us-east-1"}, "name"},
		{"region missing", map[string]any{"name": "fs"}, "region"},
		{"region unknown", map[string]any{"name": "fs", "region": "mars-north-1"}, "region"},
		{"region not a string", map[string]any{"name": "fs", "region": true}, "region"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/filesystems", tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
	}
	e.createFilesystem(e.key, "a"+strings.Repeat("b", 59)) // 60 characters is the limit, not over it
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 1 {
		t.Fatalf("%d audit events, want only the one create", n)
	}
}

func TestCreateFilesystemRefusals(t *testing.T) {
	e := newEnv(t)
	first := e.createFilesystem(e.key, "data")

	r := e.do(http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "data", "region": "us-west-1"}).
		expectError(http.StatusBadRequest, models.CodeDuplicate)
	if !strings.Contains(r.message(), "name") {
		t.Fatalf("duplicate message %q does not name the field", r.message())
	}
	// Names are unique per account: another account may use the same one.
	e.createFilesystem(e.stranger(), "data")

	e.updateAccount(models.UpdateAccountInput{FilesystemQuota: ptr(1)})
	e.do(http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "more", "region": "us-east-1"}).
		expectError(http.StatusBadRequest, models.CodeQuotaExceeded)
	e.do(http.MethodDelete, "/api/v1/filesystems/"+first.ID, nil).expect(http.StatusOK)
	e.createFilesystem(e.key, "more") // deleting frees the quota

	e.updateAccount(models.UpdateAccountInput{FilesystemQuota: ptr(10), BillingAddressValid: ptr(false)})
	e.do(http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "billed", "region": "us-east-1"}).
		expectError(http.StatusForbidden, models.CodeInvalidAddress)

	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 3 {
		t.Fatalf("%d audit events, want 3 (two creates, one delete)", n)
	}
}

// A filesystem mounted on an instance that holds it cannot be deleted;
// once the instance is terminating or terminated it can.
func TestDeleteFilesystemInUse(t *testing.T) {
	cases := []struct {
		status string
		inUse  bool
	}{
		{models.InstanceBooting, true},
		{models.InstanceActive, true},
		{models.InstanceUnhealthy, true},
		{models.InstanceTerminating, false},
		{models.InstanceTerminated, false},
	}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			e := newEnv(t)
			f := e.createFilesystem(e.key, "shared")
			idle := e.createFilesystem(e.key, "idle")
			inst := modelstest.InsertInstance(t, e.store, models.Instance{AccountID: e.accountID(), Status: tc.status})
			modelstest.Mount(t, e.store, inst.ID, f.ID, "/lambda/nfs/shared")

			inUse := map[string]bool{}
			for _, l := range e.filesystems() {
				inUse[l.Name] = l.IsInUse
			}
			if inUse["shared"] != tc.inUse || inUse["idle"] {
				t.Fatalf("is_in_use %v", inUse)
			}
			e.do(http.MethodDelete, "/api/v1/filesystems/"+idle.ID, nil).expect(http.StatusOK)
			r := e.do(http.MethodDelete, "/api/v1/filesystems/"+f.ID, nil)
			if tc.inUse {
				r.expectError(http.StatusBadRequest, models.CodeFilesystemInUse)
				if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 3 {
					t.Fatalf("%d audit events after a refused delete", n)
				}
				return
			}
			r.expect(http.StatusOK)
			var mounts int64
			e.store.DB().Model(&models.InstanceFilesystem{}).Where("filesystem_id = ?", f.ID).Count(&mounts)
			if mounts != 0 {
				t.Fatalf("%d mounts left behind", mounts)
			}
		})
	}
}

func TestFilesystemOfAnotherAccountDoesNotExist(t *testing.T) {
	e := newEnv(t)
	theirs := e.createFilesystem(e.stranger(), "theirs")
	if list := e.filesystems(); len(list) != 0 {
		t.Fatalf("sees another account's filesystems: %+v", list)
	}
	for _, id := range []string{theirs.ID, models.NewID(), "nope", strings.ToUpper(theirs.ID), theirs.ID + "0"} {
		e.do(http.MethodDelete, "/api/v1/filesystems/"+id, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	}
}

// The unique index, not a check before the insert, decides between
// concurrent creates of one name; the quota holds under the account lock.
func TestConcurrentFilesystemCreates(t *testing.T) {
	t.Run("same name", func(t *testing.T) {
		e := newEnv(t)
		codes := e.parallel(20, func(int) (string, string, any) {
			return http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "race", "region": "us-east-1"}
		})
		if codes["ok"] != 1 || codes[string(models.CodeDuplicate)] != 19 {
			t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
		}
	})
	t.Run("quota", func(t *testing.T) {
		e := newEnv(t)
		e.updateAccount(models.UpdateAccountInput{FilesystemQuota: ptr(5)})
		codes := e.parallel(20, func(i int) (string, string, any) {
			return http.MethodPost, "/api/v1/filesystems", map[string]any{"name": fmt.Sprintf("fs%d", i), "region": "us-east-1"}
		})
		if codes["ok"] != 5 || codes[string(models.CodeQuotaExceeded)] != 15 {
			t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
		}
		if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 5 {
			t.Fatalf("%d audit events for 5 creates", n)
		}
	})
}
