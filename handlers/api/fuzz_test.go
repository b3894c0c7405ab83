package api_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cloudplane/handlers"
	"cloudplane/handlers/api/apitest"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// fuzzEndpoints are the API's routes that take a body. {ruleset},
// {instance} and {ticket} name objects the account holds.
var fuzzEndpoints = []struct{ method, path string }{
	{"POST", "/api/v1/filesystems"},
	{"PUT", "/api/v1/firewall-rules"},
	{"POST", "/api/v1/firewall-rulesets"},
	{"PATCH", "/api/v1/firewall-rulesets/{ruleset}"},
	{"PATCH", "/api/v1/firewall-rulesets/global"},
	{"POST", "/api/v1/instance-operations/launch"},
	{"POST", "/api/v1/instance-operations/terminate"},
	{"POST", "/api/v1/instance-operations/restart"},
	{"POST", "/api/v1/instances/{instance}"},
	{"POST", "/api/v1/ssh-keys"},
	{"POST", "/api/v1/tickets"},
	{"PATCH", "/api/v1/tickets/{ticket}"},
	{"POST", "/api/v1/tickets/{ticket}/attachments"},
}

// fuzzSeeds are valid bodies of each endpoint, as the other tests send
// them, by index into fuzzEndpoints.
var fuzzSeeds = map[int][]string{
	0:  {`{"name": "datasets", "region": "us-east-1"}`},
	1:  {`{"data": [{"protocol": "tcp", "port_range": [22, 22], "source_network": "0.0.0.0/0", "description": "ssh"}]}`, `{"data": []}`},
	2:  {`{"name": "web", "region": "us-east-1", "rules": [{"protocol": "icmp", "source_network": "203.0.113.0/24"}]}`},
	3:  {`{"name": "renamed"}`, `{"rules": [{"protocol": "udp", "port_range": [53, 53], "source_network": "198.51.100.7"}]}`},
	4:  {`{"rules": [{"protocol": "all", "port_range": [1, 65535], "source_network": "0.0.0.0/0"}]}`, `{}`},
	5:  {`{"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": ["key"], "name": "n", "tags": [{"key": "team", "value": "ml"}]}`},
	6:  {`{"instance_ids": ["{instance}"]}`},
	7:  {`{"instance_ids": ["{instance}"]}`},
	8:  {`{"name": "renamed"}`},
	9:  {`{"name": "laptop"}`, `{"name": "desk", "public_key": "` + edPublicKey + `"}`},
	10: {incidentBody, `{"subject": "s", "description": "d", "type": "service_request", "ip": "192.0.2.1"}`},
	11: {`{"comment": {"body": "more"}}`, `{"status": "solved"}`, `{"severity": "sev_1"}`},
	12: {`{"filename": "debug.tar.gz", "content_type": "application/gzip", "size_bytes": 1024}`},
}

// fuzzAttacks are bodies every endpoint must refuse cleanly.
var fuzzAttacks = []string{
	``, `null`, `[]`, `"x"`, `{`, `{"name": "\u0000"}`, `{"name": "a\u0000b", "region": "us-east-1"}`,
	"{\"name\": \"\xff\xfe\"}", `{"name": 1e999}`, `{"rules": [null]}`, `{"data": [{}]}`, `{"instance_ids": [""]}`,
	`{"comment": {"body": "\u001b[2J"}}`, `{"subject": "\u0085", "description": "\u0000", "type": "incident"}`,
	`{"ssh_key_names": ["` + strings.Repeat("k", 300) + `"]}`, `{"quantity": -1}`, `{"port_range": [65536, 0]}`,
	`{"filename": "../x", "content_type": "text/html; charset=\"", "size_bytes": 9007199254740993}`,
}

// FuzzAPIBodies sends a body to one of the API's body-taking endpoints,
// through the real app on a fresh SQLite store with an account, its key
// and a ruleset, an instance and a ticket to change. Whatever the body:
// no 5xx, always JSON (the success shape or the error envelope with the
// request id of X-Request-Id), valid against the reference document, and
// a refused request changes nothing in the account.
func FuzzAPIBodies(f *testing.F) {
	n := len(fuzzEndpoints)
	for i := range fuzzEndpoints {
		for _, body := range fuzzSeeds[i] {
			f.Add(uint8(i), body)
		}
	}
	// Each attack at two endpoints, to keep the seed run short: every
	// input costs a migrated database; the fuzzer mixes them further.
	for j, body := range fuzzAttacks {
		f.Add(uint8(j%n), body)
		f.Add(uint8((j+n/2)%n), body)
	}
	spec := apitest.Optional(f)
	f.Fuzz(func(t *testing.T, endpoint uint8, body string) {
		e := fuzzEnv(t, spec)
		rulesetID, instanceID, ticketID := e.fuzzFixtures()
		ep := fuzzEndpoints[int(endpoint)%len(fuzzEndpoints)]
		ids := strings.NewReplacer("{ruleset}", rulesetID, "{instance}", instanceID, "{ticket}", ticketID)
		before := e.snapshot()
		r := e.do(ep.method, ids.Replace(ep.path), ids.Replace(body))
		if r.Status >= 500 {
			t.Fatalf("%s %s %q: %d %s", ep.method, ep.path, body, r.Status, r.Body)
		}
		if !json.Valid(r.Body) || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s %s %q: not JSON: %s", ep.method, ep.path, body, r.Body)
		}
		if r.Status < 300 {
			var ok struct{ Data json.RawMessage }
			if r.decode(&ok); ok.Data == nil {
				t.Fatalf("%s %s %q: success without data: %s", ep.method, ep.path, body, r.Body)
			}
			return
		}
		r.expectError(r.Status, models.Code(r.code()))
		if after := e.snapshot(); !maps.Equal(before, after) {
			t.Fatalf("%s %s %q: refused with %d but changed the account: %v, then %v", ep.method, ep.path, body, r.Status, before, after)
		}
	})
}

// fuzzEnv is newEnv on SQLite whatever the environment asks: the fuzzer
// makes a database per input.
func fuzzEnv(t *testing.T, spec *apitest.Spec) *env {
	// Not t.TempDir: the subtests' names ("seed#3") put a '#' in its path,
	// where the SQLite DSN would cut it.
	dir, err := os.MkdirTemp("", "cloudplane-fuzz")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	store := modelstest.OpenAt(t, filepath.Join(dir, "fuzz.db"))
	owner, key := modelstest.Owner(t, store, "owner@example.com")
	return &env{t: t, app: handlers.New(handlers.Config{Store: store}), store: store, spec: spec, own: apitest.Cloudplane(t), owner: owner, key: key}
}

// fuzzFixtures makes the objects the bodies change, as cheaply as the
// store allows: the instance is written directly.
func (e *env) fuzzFixtures() (rulesetID, instanceID, ticketID string) {
	e.t.Helper()
	rulesetID = modelstest.InsertRuleset(e.t, e.store, e.owner, "r", "us-east-1")
	e.addSSHKey(e.key, "key")
	inst := modelstest.InsertInstance(e.t, e.store, models.Instance{AccountID: *e.owner.AccountID, Status: models.InstanceActive})
	return rulesetID, inst.ID, e.createTicket(incidentBody)
}
