package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// mounts is an instance's mounts as "id:path", in its order.
func (i apiInstance) mounts() []string {
	out := []string{}
	for _, m := range i.FileSystemMounts {
		out = append(out, m.FileSystemID+":"+m.MountPoint)
	}
	return out
}

// lambda-cloud-cli fills file_system_names and file_system_mounts both,
// naming the same filesystems in each: the reference mounts each once, at
// the mount's path, and so do we.
func TestLaunchAsLambdaCloudCLISendsIt(t *testing.T) {
	e := newEnv(t, withCapacity(t, "gpu_1x_a10:us-east-1=10"))
	e.addSSHKey(e.key, "key")
	data := modelstest.InsertFilesystem(t, e.store, e.owner, "data", "us-east-1")
	weights := modelstest.InsertFilesystem(t, e.store, e.owner, "weights", "us-east-1")

	var out struct {
		InstanceIDs []string `json:"instance_ids"`
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/launch", `{
		"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": ["key"],
		"name": "cli-launch", "hostname": null, "image": null, "tags": [], "firewall_rulesets": [],
		"file_system_names": ["data", "weights"],
		"file_system_mounts": [
			{"file_system_id": "`+data+`", "mount_point": "/lambda/nfs/data"},
			{"file_system_id": "`+weights+`", "mount_point": "/data/weights"}
		]}`).expect(http.StatusOK).data(&out)
	inst := e.instance(e.key, out.InstanceIDs[0])
	want := fmt.Sprint([]string{data + ":/lambda/nfs/data", weights + ":/data/weights"})
	if got := fmt.Sprint(inst.mounts()); got != want {
		t.Fatalf("mounts %s, want %s", got, want)
	}
	if got := fmt.Sprint(inst.FileSystemNames); got != "[data weights]" {
		t.Fatalf("file_system_names %s", got)
	}
}

// The rule does not let a launch mount one filesystem at two paths, or two
// at one path.
func TestLaunchRefusesAmbiguousMountsThroughTheAPI(t *testing.T) {
	e := newEnv(t, withCapacity(t, "gpu_1x_a10:us-east-1=10"))
	e.addSSHKey(e.key, "key")
	data := modelstest.InsertFilesystem(t, e.store, e.owner, "data", "us-east-1")
	other := modelstest.InsertFilesystem(t, e.store, e.owner, "other", "us-east-1")
	mount := func(id, path string) map[string]string {
		return map[string]string{"file_system_id": id, "mount_point": path}
	}
	for _, c := range []struct {
		name  string
		with  map[string]any
		field string
	}{
		{"one filesystem at two paths", map[string]any{"file_system_names": []string{"data"},
			"file_system_mounts": []any{mount(data, "/data/a"), mount(data, "/data/b")}}, "file_system_mounts.1.file_system_id"},
		{"two filesystems at one path", map[string]any{
			"file_system_mounts": []any{mount(data, "/data/a"), mount(other, "/data/a")}}, "file_system_mounts.1.mount_point"},
		{"a mount at a named filesystem's path", map[string]any{"file_system_names": []string{"data"},
			"file_system_mounts": []any{mount(other, "/lambda/nfs/data")}}, "file_system_mounts.0"},
	} {
		r := e.do(http.MethodPost, "/api/v1/instance-operations/launch", launchBody(c.with)).
			expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if msg := r.message(); !strings.Contains(msg, c.field+": ") {
			t.Errorf("%s: message %q does not name %s", c.name, msg, c.field)
		}
	}
	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != 0 {
		t.Fatalf("refused launches left %d instances", len(list))
	}
}
