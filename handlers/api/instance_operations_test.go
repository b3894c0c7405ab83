package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type terminated struct {
	Instances []apiInstance `json:"terminated_instances"`
}

type restarted struct {
	Instances []apiInstance `json:"restarted_instances"`
}

// The whole life of an instance through the API, moved on by the clock.
func TestInstanceLifecycleThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	e.addSSHKey(e.key, "key")
	id := e.launchOne(e.key)
	ids := map[string]any{"instance_ids": []string{id}}

	inst := e.instance(e.key, id)
	if inst.Status != models.InstanceBooting || inst.Actions.Restart.ReasonCode != models.ReasonNotLaunched ||
		!inst.Actions.Terminate.Available || inst.IP == "" || inst.PrivateIP == "" || inst.Hostname == "" {
		t.Fatalf("launched %+v", inst)
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/restart", ids).expectError(http.StatusConflict, models.CodeConflict)

	e.clock.Advance(30 * time.Second) // the default boot time
	if inst := e.instance(e.key, id); inst.Status != models.InstanceActive || !inst.Actions.Restart.Available {
		t.Fatalf("after booting %+v", inst)
	}

	var renamed apiInstance
	e.do(http.MethodPost, "/api/v1/instances/"+id, map[string]any{"name": "trainer"}).expect(http.StatusOK).data(&renamed)
	if renamed.Name != "trainer" || renamed.ID != id {
		t.Fatalf("renamed %+v", renamed)
	}
	r := e.do(http.MethodPost, "/api/v1/instances/"+id, map[string]any{"name": strings.Repeat("x", 65)})
	if r.expectError(http.StatusBadRequest, models.CodeInvalidParameters); !strings.Contains(r.message(), "name") {
		t.Fatalf("message %q", r.message())
	}

	var re restarted
	e.do(http.MethodPost, "/api/v1/instance-operations/restart", ids).expect(http.StatusOK).data(&re)
	if len(re.Instances) != 1 || re.Instances[0].Status != models.InstanceBooting || re.Instances[0].Name != "trainer" {
		t.Fatalf("restarted %+v", re)
	}
	e.clock.Advance(30 * time.Second)

	var term terminated
	e.do(http.MethodPost, "/api/v1/instance-operations/terminate", ids).expect(http.StatusOK).data(&term)
	if len(term.Instances) != 1 || term.Instances[0].Status != models.InstanceTerminating ||
		term.Instances[0].Actions.Terminate.ReasonCode != models.ReasonTerminating {
		t.Fatalf("terminated %+v", term)
	}
	e.clock.Advance(10 * time.Second) // the default terminate time
	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != 0 {
		t.Fatalf("terminated instances listed: %+v", list)
	}
	if inst := e.instance(e.key, id); inst.Status != models.InstanceTerminated {
		t.Fatalf("after terminating %+v", inst)
	}
	// A retried terminate succeeds and answers the instance as it is.
	e.do(http.MethodPost, "/api/v1/instance-operations/terminate", ids).expect(http.StatusOK).data(&term)
	if term.Instances[0].Status != models.InstanceTerminated {
		t.Fatalf("terminated again %+v", term)
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/restart", ids).expectError(http.StatusConflict, models.CodeConflict)
}

// Another account's instances answer exactly as missing ones do.
func TestAnotherAccountsInstancesAreNotFound(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	e.addSSHKey(e.key, "key")
	e.addSSHKey(otherKey, "key")
	mine := e.launchOne(e.key)
	theirs := e.launchOne(otherKey)

	for _, id := range []string{theirs, models.NewID(), "not-an-id"} {
		both := map[string]any{"instance_ids": []string{mine, id}}
		cases := []struct {
			method, path string
			body         any
		}{
			{http.MethodGet, "/api/v1/instances/" + id, nil},
			{http.MethodPost, "/api/v1/instances/" + id, map[string]any{"name": "mine now"}},
			{http.MethodPost, "/api/v1/instance-operations/terminate", both},
			{http.MethodPost, "/api/v1/instance-operations/restart", both},
		}
		for _, tc := range cases {
			r := e.do(tc.method, tc.path, tc.body).expectError(http.StatusNotFound, models.CodeNotFound)
			if !strings.Contains(r.message(), id) {
				t.Fatalf("%s %s: message %q does not name %s", tc.method, tc.path, r.message(), id)
			}
		}
	}
	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != 1 || list[0].ID != mine || list[0].Status != models.InstanceBooting {
		t.Fatalf("own instances %+v", list)
	}
	if inst := e.instance(otherKey, theirs); inst.Status != models.InstanceBooting || inst.Name != "" {
		t.Fatalf("the other account's instance changed: %+v", inst)
	}
}

func TestInstanceOperationBadInput(t *testing.T) {
	e := newEnv(t)
	for _, op := range []string{"terminate", "restart"} {
		cases := []struct {
			name string
			body any
		}{
			{"no ids", map[string]any{}},
			{"empty ids", map[string]any{"instance_ids": []string{}}},
			{"ids not a list", map[string]any{"instance_ids": "abc"}},
			{"id not a string", map[string]any{"instance_ids": []int{1}}},
		}
		for _, tc := range cases {
			t.Run(op+"/"+tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/api/v1/instance-operations/"+op, tc.body)
				if r.expectError(http.StatusBadRequest, models.CodeInvalidParameters); !strings.Contains(r.message(), "instance_ids") {
					t.Fatalf("message %q does not name instance_ids", r.message())
				}
			})
		}
	}
}

// The capacity is shared by every account and freed by terminating.
func TestCapacityExhaustedThenFreed(t *testing.T) {
	e := newEnv(t, withCapacity(t, "gpu_1x_a10:us-east-1=1"))
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	e.addSSHKey(e.key, "key")
	e.addSSHKey(otherKey, "key")
	id := e.launchOne(e.key)
	e.doAs(otherKey, http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)).
		expectError(http.StatusBadRequest, models.CodeInsufficientCap)
	if regions := e.regionsWithCapacity("gpu_1x_a10"); len(regions) != 0 {
		t.Fatalf("full, yet offered in %v", regions)
	}
	e.do(http.MethodPost, "/api/v1/instance-operations/terminate", map[string]any{"instance_ids": []string{id}}).expect(http.StatusOK)
	if regions := e.regionsWithCapacity("gpu_1x_a10"); len(regions) != 1 || regions[0] != "us-east-1" {
		t.Fatalf("after terminate offered in %v", regions)
	}
	e.launchOne(otherKey)
}

func (e *env) regionsWithCapacity(typeName string) []string {
	e.t.Helper()
	var types map[string]struct {
		InstanceType models.InstanceType `json:"instance_type"`
		Regions      []models.Region     `json:"regions_with_capacity_available"`
	}
	e.do(http.MethodGet, "/api/v1/instance-types", nil).expect(http.StatusOK).data(&types)
	if len(types) != len(models.InstanceTypes) {
		e.t.Fatalf("%d instance types, want %d", len(types), len(models.InstanceTypes))
	}
	for name, item := range types {
		if item.InstanceType.Name != name || item.InstanceType.Specs.GPUs == 0 || item.Regions == nil {
			e.t.Fatalf("item %s: %+v", name, item)
		}
	}
	names := []string{}
	for _, r := range types[typeName].Regions {
		names = append(names, r.Name)
	}
	return names
}

// Launches are limited per account to one per 12 s, on top of the general
// limit, with Retry-After on the refusal.
func TestLaunchRateLimit(t *testing.T) {
	limiterClock := modelstest.NewClock()
	launch, err := ratelimit.NewMemory(ratelimit.Quota{Rate: 12 * time.Second, Burst: 1}, ratelimit.WithClock(limiterClock.Now))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withLimits(api.Limits{Launch: launch}))
	e.addSSHKey(e.key, "key")
	e.launchOne(e.key)
	r := e.do(http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)).
		expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	if got := r.Header.Get("Retry-After"); got != "12" {
		t.Fatalf("Retry-After %q, want 12", got)
	}
	// Other routes are not held back by the launch limit.
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK)
	limiterClock.Advance(12 * time.Second)
	e.launchOne(e.key)
}
