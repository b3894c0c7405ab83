package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type fabricPartitionOut struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Created     string        `json:"created"`
	WorkspaceID string        `json:"workspace_id"`
	Region      models.Region `json:"region"`
}

func (e *env) createPartition(key, name, region string) fabricPartitionOut {
	e.t.Helper()
	var p fabricPartitionOut
	e.doAs(key, http.MethodPost, "/api/v1/fabric", map[string]any{"name": name, "region": region}).
		expect(http.StatusOK).data(&p)
	return p
}

// partitionNames lists the env owner's partitions as region/name; the
// reference has no list operation, so the store is asked.
func (e *env) partitionNames() []string {
	e.t.Helper()
	list, err := e.store.FabricPartitions(context.Background(), e.owner.Actor())
	if err != nil {
		e.t.Fatal(err)
	}
	names := []string{}
	for _, p := range list {
		names = append(names, p.RegionName+"/"+p.Name)
	}
	return names
}

func TestFabricPartitionLifecycle(t *testing.T) {
	e := newEnv(t)
	// The requests themselves are what the reference documents.
	for _, body := range []string{`{"name": "training-one", "region": "us-east-1", "workspace_id": "` + e.accountID() + `"}`,
		`{"name": "training-one"}`} {
		path := "/api/v1/fabric"
		if !strings.Contains(body, "region") {
			path += "/" + models.NewID()
		}
		e.spec.ValidateRequest(t, httptest.NewRequest(http.MethodPost, path, nil), []byte(body))
	}

	p := e.createPartition(e.key, "training-one", "us-west-1")
	want := fabricPartitionOut{ID: p.ID, Name: "training-one", Created: e.clock.Now().UTC().Format(time.RFC3339),
		WorkspaceID: p.WorkspaceID, Region: models.Region{Name: "us-west-1", Description: "California, USA"}}
	if !models.IsID(p.ID) || !models.IsID(p.WorkspaceID) || p != want {
		t.Fatalf("created %+v\nwant    %+v", p, want)
	}
	// The default workspace's id is stable: naming it lands in the same one.
	var named fabricPartitionOut
	e.do(http.MethodPost, "/api/v1/fabric", map[string]any{"name": "training-two", "region": "us-west-1",
		"workspace_id": p.WorkspaceID}).expect(http.StatusOK).data(&named)
	if named.WorkspaceID != p.WorkspaceID {
		t.Fatalf("workspace %q, want the default %q", named.WorkspaceID, p.WorkspaceID)
	}

	e.clock.Advance(time.Minute)
	var renamed fabricPartitionOut
	e.do(http.MethodPost, "/api/v1/fabric/"+p.ID, map[string]any{"name": "inference"}).expect(http.StatusOK).data(&renamed)
	want.Name = "inference"
	if renamed != want {
		t.Fatalf("renamed %+v\nwant    %+v", renamed, want)
	}
	e.do(http.MethodPost, "/api/v1/fabric/"+p.ID, map[string]any{"name": "inference"}).expect(http.StatusOK)
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 3 {
		t.Fatalf("%d audit events after two creates and a rename (and a rename to the same name)", n)
	}

	var deleted map[string]any
	e.do(http.MethodDelete, "/api/v1/fabric/"+p.ID, nil).expect(http.StatusOK).data(&deleted)
	if len(deleted) != 0 {
		t.Fatalf("delete answered %v, want {}", deleted)
	}
	if got := e.partitionNames(); len(got) != 1 || got[0] != "us-west-1/training-two" {
		t.Fatalf("left %v", got)
	}
	e.do(http.MethodDelete, "/api/v1/fabric/"+p.ID, nil).expectError(http.StatusNotFound, models.CodeFabricPartitionNotFound)
	e.do(http.MethodPost, "/api/v1/fabric/"+p.ID, map[string]any{"name": "back"}).expectError(http.StatusNotFound, models.CodeFabricPartitionNotFound)
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 4 {
		t.Fatalf("%d audit events after the delete", n)
	}
}

func TestFabricPartitionRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	p := e.createPartition(e.key, "mine", "us-east-1")
	theirs := e.createPartition(e.stranger(), "theirs", "us-east-1")
	name := func(v any) map[string]any { return map[string]any{"name": v, "region": "us-east-1"} }
	cases := []struct {
		name  string
		body  any
		field string // named in the message
	}{
		{"no body", "", ""},
		{"not an object", "[]", ""},
		{"malformed", `{"name":`, ""},
		{"name missing", map[string]any{"region": "us-east-1"}, "name"},
		{"name empty", name(""), "name"},
		{"name not a string", name(7), "name"},
		{"name too long", name("a" + strings.Repeat("b", 32)), "name"},
		{"name upper case", name("Training"), "name"},
		{"name starts with a hyphen", name("-p"), "name"},
		{"name with an underscore", name("my_p"), "name"},
		{"name with a space", name("my p"), "name"},
		{"name with a NUL", name("p\x00"), "name"},
		{"region missing", map[string]any{"name": "p"}, "region"},
		{"region unknown", map[string]any{"name": "p", "region": "mars-north-1"}, "region"},
		{"region not a string", map[string]any{"name": "p", "region": 1}, "region"},
		{"workspace unknown", map[string]any{"name": "p", "region": "us-east-1", "workspace_id": models.NewID()}, "workspace_id"},
		{"workspace of another account", map[string]any{"name": "p", "region": "us-east-1", "workspace_id": theirs.WorkspaceID}, "workspace_id"},
		{"workspace not a string", map[string]any{"name": "p", "region": "us-east-1", "workspace_id": 5}, "workspace_id"},
	}
	for _, tc := range cases {
		t.Run("create "+tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/fabric", tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
		if tc.field == "name" || tc.field == "" {
			t.Run("rename "+tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/api/v1/fabric/"+p.ID, tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
				if !strings.Contains(r.message(), tc.field) {
					t.Fatalf("message %q does not name %q", r.message(), tc.field)
				}
			})
		}
	}
	e.createPartition(e.key, "a"+strings.Repeat("0", 31), "us-east-1") // 32 characters is the limit, not over it
	if got := e.partitionNames(); len(got) != 2 {
		t.Fatalf("partitions %v after refusals", got)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 2 {
		t.Fatalf("%d audit events, want only the two creates", n)
	}
}

func TestFabricPartitionRefusals(t *testing.T) {
	e := newEnv(t)
	first := e.createPartition(e.key, "data", "us-east-1")
	second := e.createPartition(e.key, "other", "us-east-1")

	r := e.do(http.MethodPost, "/api/v1/fabric", map[string]any{"name": "data", "region": "us-east-1"}).
		expectError(http.StatusBadRequest, models.CodeDuplicate)
	if !strings.Contains(r.message(), "name") {
		t.Fatalf("duplicate message %q does not name the field", r.message())
	}
	e.do(http.MethodPost, "/api/v1/fabric/"+second.ID, map[string]any{"name": "data"}).
		expectError(http.StatusBadRequest, models.CodeDuplicate)
	// Names are unique per account and region.
	e.createPartition(e.key, "data", "us-west-1")
	e.createPartition(e.stranger(), "data", "us-east-1")

	e.updateAccount(models.UpdateAccountInput{FabricPartitionQuota: ptr(3)})
	e.do(http.MethodPost, "/api/v1/fabric", map[string]any{"name": "more", "region": "us-east-1"}).
		expectError(http.StatusBadRequest, models.CodeQuotaExceeded)
	e.do(http.MethodDelete, "/api/v1/fabric/"+first.ID, nil).expect(http.StatusOK)
	e.createPartition(e.key, "more", "us-east-1") // deleting frees the quota

	if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 5 {
		t.Fatalf("%d audit events, want 5 (four creates, one delete)", n)
	}
}

func TestFabricPartitionOfAnotherAccountDoesNotExist(t *testing.T) {
	e := newEnv(t)
	theirs := e.createPartition(e.stranger(), "theirs", "us-east-1")
	for _, id := range []string{theirs.ID, models.NewID(), "nope", strings.ToUpper(theirs.ID), theirs.ID + "0"} {
		e.do(http.MethodPost, "/api/v1/fabric/"+id, map[string]any{"name": "mine"}).expectError(http.StatusNotFound, models.CodeFabricPartitionNotFound)
		e.do(http.MethodDelete, "/api/v1/fabric/"+id, nil).expectError(http.StatusNotFound, models.CodeFabricPartitionNotFound)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 0 {
		t.Fatalf("%d audit events in the prober's account", n)
	}
}

// The account lock makes concurrent creates count each other against the
// quota; the unique index decides between creates of one name.
func TestConcurrentFabricPartitionCreates(t *testing.T) {
	t.Run("quota", func(t *testing.T) {
		e := newEnv(t)
		e.updateAccount(models.UpdateAccountInput{FabricPartitionQuota: ptr(5)})
		codes := e.parallel(24, func(i int) (string, string, any) {
			return http.MethodPost, "/api/v1/fabric", map[string]any{"name": fmt.Sprintf("p%d", i), "region": "us-east-1"}
		})
		if codes["ok"] != 5 || codes[string(models.CodeQuotaExceeded)] != 19 {
			t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
		}
		if got := e.partitionNames(); len(got) != 5 {
			t.Fatalf("%d partitions for a quota of 5", len(got))
		}
		if n := modelstest.AuditCount(t, e.store, e.accountID(), "fabric_partition"); n != 5 {
			t.Fatalf("%d audit events for 5 creates", n)
		}
	})
	t.Run("same name", func(t *testing.T) {
		e := newEnv(t)
		codes := e.parallel(20, func(int) (string, string, any) {
			return http.MethodPost, "/api/v1/fabric", map[string]any{"name": "race", "region": "us-east-1"}
		})
		if codes["ok"] != 1 || codes[string(models.CodeDuplicate)] != 19 {
			t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
		}
	})
}
