package api_test

import (
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type apiInstance struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	IP               string   `json:"ip"`
	PrivateIP        string   `json:"private_ip"`
	Status           string   `json:"status"`
	Hostname         string   `json:"hostname"`
	SSHKeyNames      []string `json:"ssh_key_names"`
	FileSystemNames  []string `json:"file_system_names"`
	FileSystemMounts []struct {
		MountPoint   string `json:"mount_point"`
		FileSystemID string `json:"file_system_id"`
	} `json:"file_system_mounts"`
	Region           models.Region          `json:"region"`
	InstanceType     models.InstanceType    `json:"instance_type"`
	Actions          models.InstanceActions `json:"actions"`
	Tags             []models.InstanceTag   `json:"tags"`
	FirewallRulesets []models.RulesetRef    `json:"firewall_rulesets"`
}

// withCapacity runs the store with the operator's capacity spec.
func withCapacity(t *testing.T, spec string) envOption {
	t.Helper()
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	c, err := models.ParseCapacity(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capacity = c
	return withStoreOptions(models.WithConfig(cfg))
}

// addSSHKey gives the account of key an SSH key called name.
func (e *env) addSSHKey(key, name string) {
	e.t.Helper()
	e.doAs(key, http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": name}).expect(http.StatusOK)
}

// launchOne launches one gpu_1x_a10 in us-east-1 with the key "key" and
// returns its id.
func (e *env) launchOne(key string) string {
	e.t.Helper()
	var out struct {
		InstanceIDs []string `json:"instance_ids"`
	}
	e.doAs(key, http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)).expect(http.StatusOK).data(&out)
	if len(out.InstanceIDs) != 1 || !models.IsID(out.InstanceIDs[0]) {
		e.t.Fatalf("launched %v", out.InstanceIDs)
	}
	return out.InstanceIDs[0]
}

// launchBody is a valid launch request with the given fields replaced (a
// nil value removes the field).
func launchBody(with map[string]any) map[string]any {
	b := map[string]any{"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": []string{"key"}}
	for k, v := range with {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func (e *env) instance(key, id string) apiInstance {
	e.t.Helper()
	var inst apiInstance
	e.doAs(key, http.MethodGet, "/api/v1/instances/"+id, nil).expect(http.StatusOK).data(&inst)
	return inst
}

func TestLaunchScenarios(t *testing.T) {
	e := newEnv(t, withCapacity(t, "gpu_1x_a10:us-east-1=10,gpu_1x_a10:us-west-1=10"))
	e.addSSHKey(e.key, "key")
	other, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	e.addSSHKey(otherKey, "theirs")
	modelstest.InsertFilesystem(t, e.store, e.owner, "east", "us-east-1")
	west := modelstest.InsertFilesystem(t, e.store, e.owner, "west", "us-west-1")
	modelstest.InsertFilesystem(t, e.store, other, "theirs", "us-east-1")
	theirRuleset := modelstest.InsertRuleset(t, e.store, other, "theirs", "us-east-1")

	cases := []struct {
		name   string
		with   map[string]any
		status int
		code   models.Code
		text   string // in the error message, or the number of ids
	}{
		{"minimal", nil, http.StatusOK, "", "1"},
		{"quantity", map[string]any{"quantity": 3}, http.StatusOK, "", "3"},
		{"everything", map[string]any{"name": "trainer", "hostname": "head", "file_system_names": []string{"east"},
			"tags":  []map[string]string{{"key": "team", "value": "ml"}},
			"image": map[string]string{"family": "lambda-stack-24-04"}, "user_data": "#cloud-config"}, http.StatusOK, "", "1"},
		{"unknown region", map[string]any{"region_name": "mars-1"}, http.StatusBadRequest, models.CodeInvalidParameters, "region_name"},
		{"no region", map[string]any{"region_name": nil}, http.StatusBadRequest, models.CodeInvalidParameters, "region_name"},
		{"unknown type", map[string]any{"instance_type_name": "gpu_9x"}, http.StatusBadRequest, models.CodeInvalidParameters, "instance_type_name"},
		{"no keys", map[string]any{"ssh_key_names": nil}, http.StatusBadRequest, models.CodeInvalidParameters, "ssh_key_names"},
		{"keys not a list", map[string]any{"ssh_key_names": "key"}, http.StatusBadRequest, models.CodeInvalidParameters, "ssh_key_names"},
		{"two keys", map[string]any{"ssh_key_names": []string{"key", "key2"}}, http.StatusBadRequest, models.CodeInvalidParameters, "ssh_key_names"},
		{"quantity not a number", map[string]any{"quantity": "2"}, http.StatusBadRequest, models.CodeInvalidParameters, "quantity"},
		{"quantity too high", map[string]any{"quantity": 11}, http.StatusBadRequest, models.CodeInvalidParameters, "quantity"},
		{"bad hostname", map[string]any{"hostname": "-x"}, http.StatusBadRequest, models.CodeInvalidParameters, "hostname"},
		{"bad tag", map[string]any{"tags": []map[string]string{{"key": "UP", "value": "x"}}}, http.StatusBadRequest, models.CodeInvalidParameters, "tags.0.key"},
		{"another account's key", map[string]any{"ssh_key_names": []string{"theirs"}}, http.StatusNotFound, models.CodeNotFound, "theirs"},
		{"unknown filesystem", map[string]any{"file_system_names": []string{"nope"}}, http.StatusNotFound, models.CodeNotFound, "file_system_names.0"},
		{"another account's filesystem", map[string]any{"file_system_names": []string{"theirs"}}, http.StatusNotFound, models.CodeNotFound, "theirs"},
		{"filesystem in another region", map[string]any{"file_system_names": []string{"west"}}, http.StatusBadRequest, models.CodeFilesystemWrongZone, "us-west-1"},
		{"mount in another region", map[string]any{"file_system_mounts": []map[string]string{{"mount_point": "/data/w", "file_system_id": west}}},
			http.StatusBadRequest, models.CodeFilesystemWrongZone, "file_system_mounts.0"},
		{"another account's ruleset", map[string]any{"firewall_rulesets": []map[string]string{{"id": theirRuleset}}}, http.StatusNotFound, models.CodeNotFound, "firewall_rulesets.0.id"},
		{"no capacity for the type", map[string]any{"instance_type_name": "gpu_8x_h100_sxm5"}, http.StatusBadRequest, models.CodeInsufficientCap, "gpu_8x_h100_sxm5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/instance-operations/launch", launchBody(tc.with))
			if tc.code != "" {
				r.expectError(tc.status, tc.code)
				if !strings.Contains(r.message(), tc.text) {
					t.Fatalf("message %q does not mention %s", r.message(), tc.text)
				}
				return
			}
			var out struct {
				InstanceIDs []string `json:"instance_ids"`
			}
			r.expect(tc.status).data(&out)
			if want := tc.text; len(out.InstanceIDs) != int(want[0]-'0') {
				t.Fatalf("ids %v, want %s", out.InstanceIDs, want)
			}
		})
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/launch", `{"region_name": "us-east-1",`).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters)

	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != 5 {
		t.Fatalf("%d instances, want the 5 launched", len(list))
	}
	var full apiInstance
	for _, inst := range list {
		if inst.Name == "trainer" {
			full = inst
		}
	}
	if full.Name != "trainer" || full.Hostname != "head" || len(full.FileSystemNames) != 1 || full.FileSystemNames[0] != "east" ||
		len(full.FileSystemMounts) != 1 || full.FileSystemMounts[0].MountPoint != "/lambda/nfs/east" ||
		len(full.Tags) != 1 || full.Region.Name != "us-east-1" || full.InstanceType.Name != "gpu_1x_a10" {
		t.Fatalf("launched %+v", full)
	}
}

func TestLaunchNeedsAValidBillingAddress(t *testing.T) {
	e := newEnv(t)
	e.addSSHKey(e.key, "key")
	invalid := false
	if _, err := e.store.UpdateAccount(e.t.Context(), models.OperatorActor, e.owner.Email,
		models.UpdateAccountInput{BillingAddressValid: &invalid}); err != nil {
		t.Fatal(err)
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)).
		expectError(http.StatusForbidden, models.CodeInvalidAddress)
}
