package api_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type rulesetOut struct {
	ID          string                `json:"id"`
	Name        string                `json:"name"`
	Region      models.Region         `json:"region"`
	Rules       []models.FirewallRule `json:"rules"`
	Created     string                `json:"created"`
	InstanceIDs []string              `json:"instance_ids"`
}

var sshRule = models.FirewallRule{Protocol: "tcp", PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0", Description: "ssh"}

func (e *env) createRuleset(key, name string) rulesetOut {
	e.t.Helper()
	var r rulesetOut
	e.doAs(key, http.MethodPost, "/api/v1/firewall-rulesets",
		map[string]any{"name": name, "region": "us-west-1", "rules": []models.FirewallRule{sshRule}}).
		expect(http.StatusOK).data(&r)
	return r
}

func (e *env) ruleset(id string) rulesetOut {
	e.t.Helper()
	var r rulesetOut
	e.do(http.MethodGet, "/api/v1/firewall-rulesets/"+id, nil).expect(http.StatusOK).data(&r)
	return r
}

func (e *env) rulesets() []rulesetOut {
	e.t.Helper()
	var list []rulesetOut
	e.do(http.MethodGet, "/api/v1/firewall-rulesets", nil).expect(http.StatusOK).data(&list)
	return list
}

func TestRulesetLifecycle(t *testing.T) {
	e := newEnv(t)
	var created rulesetOut
	e.do(http.MethodPost, "/api/v1/firewall-rulesets", map[string]any{"name": "  web  ", "region": "us-west-1",
		"rules": []map[string]any{{"protocol": "tcp", "port_range": []int{443, 443}, "source_network": "203.0.113.9", "description": "https"}}}).
		expect(http.StatusOK).data(&created)
	want := rulesetOut{ID: created.ID, Name: "web", Region: models.Region{Name: "us-west-1", Description: "California, USA"},
		Rules:   []models.FirewallRule{{Protocol: "tcp", PortRange: []int{443, 443}, SourceNetwork: "203.0.113.9/32", Description: "https"}},
		Created: e.clock.Now().UTC().Format(time.RFC3339), InstanceIDs: []string{}}
	if !models.IsID(created.ID) || !reflect.DeepEqual(created, want) {
		t.Fatalf("created %+v\nwant    %+v", created, want)
	}
	if got := e.ruleset(created.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	e.clock.Advance(time.Minute)
	second := e.createRuleset(e.key, "second")
	if list := e.rulesets(); len(list) != 2 || !reflect.DeepEqual(list[0], want) || list[1].ID != second.ID {
		t.Fatalf("listed %+v", list)
	}

	var patched rulesetOut
	e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+created.ID, map[string]any{"name": "web-2"}).expect(http.StatusOK).data(&patched)
	want.Name = "web-2"
	if !reflect.DeepEqual(patched, want) {
		t.Fatalf("renamed %+v", patched)
	}
	e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+created.ID, `{"rules": []}`).expect(http.StatusOK).data(&patched)
	want.Rules = []models.FirewallRule{}
	if !reflect.DeepEqual(patched, want) {
		t.Fatalf("emptied %+v", patched)
	}
	e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+created.ID, `{}`).expect(http.StatusOK).data(&patched)
	if got := e.ruleset(created.ID); !reflect.DeepEqual(patched, want) || !reflect.DeepEqual(got, want) {
		t.Fatalf("an empty patch changed %+v", got)
	}

	r := e.do(http.MethodDelete, "/api/v1/firewall-rulesets/"+created.ID, nil).expect(http.StatusOK)
	if string(r.Body) != `{"data":{}}` {
		t.Fatalf("delete answered %s", r.Body)
	}
	e.do(http.MethodGet, "/api/v1/firewall-rulesets/"+created.ID, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	if list := e.rulesets(); len(list) != 1 || list[0].ID != second.ID {
		t.Fatalf("listed after delete %+v", list)
	}
	// Two creates, two patches that changed something, one delete.
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_ruleset"); n != 5 {
		t.Fatalf("%d audit events, want 5", n)
	}
}

func TestCreateRulesetRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	rules := []models.FirewallRule{sshRule}
	cases := []struct {
		name  string
		body  any
		field string // named in the message
	}{
		{"no body", "", ""},
		{"name missing", map[string]any{"region": "us-west-1", "rules": rules}, "name"},
		{"name blank", map[string]any{"name": "   ", "region": "us-west-1", "rules": rules}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 65), "region": "us-west-1", "rules": rules}, "name"},
		{"name not a string", map[string]any{"name": []string{"a"}, "region": "us-west-1", "rules": rules}, "name"},
		{"region missing", map[string]any{"name": "r", "rules": rules}, "region"},
		{"region unknown", map[string]any{"name": "r", "region": "us-west-9", "rules": rules}, "region"},
		{"region without firewall", map[string]any{"name": "r", "region": models.RegionNoFirewall, "rules": rules}, "do not apply in us-south-1"},
		{"rules missing", map[string]any{"name": "r", "region": "us-west-1"}, "rules"},
		{"rules not a list", map[string]any{"name": "r", "region": "us-west-1", "rules": "tcp/22"}, "rules"},
		{"rule invalid", map[string]any{"name": "r", "region": "us-west-1",
			"rules": []map[string]any{sshJSON(), {"protocol": "udp", "source_network": "0.0.0.0/0"}}}, "rules.1.port_range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/firewall-rulesets", tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Fatalf("message %q does not name %q", r.message(), tc.field)
			}
		})
	}
	e.createRuleset(e.key, strings.Repeat("n", 64)) // the limit itself is fine
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_ruleset"); n != 1 {
		t.Fatalf("%d audit events, want only the one create", n)
	}
}

func sshJSON() map[string]any {
	return map[string]any{"protocol": "tcp", "port_range": []int{22, 22}, "source_network": "0.0.0.0/0", "description": "ssh"}
}

func TestUpdateRulesetRejectsBadInput(t *testing.T) {
	e := newEnv(t)
	r := e.createRuleset(e.key, "keep")
	cases := []struct {
		name, body, field string
	}{
		{"no body", "", ""},
		{"name blank", `{"name": ""}`, "name"},
		{"name too long", `{"name": "` + strings.Repeat("n", 65) + `"}`, "name"},
		{"name not a string", `{"name": 1}`, "name"},
		{"rules not a list", `{"rules": {}}`, "rules"},
		{"rule invalid", `{"name": "fine", "rules": [{"protocol": "icmp", "source_network": "10.1.0.0/16"}]}`, "rules.0.source_network"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+r.ID, tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(res.message(), tc.field) {
				t.Fatalf("message %q does not name %q", res.message(), tc.field)
			}
		})
	}
	if got := e.ruleset(r.ID); !reflect.DeepEqual(got, r) {
		t.Fatalf("refused patches changed %+v", got)
	}
}

func TestRulesetQuota(t *testing.T) {
	e := newEnv(t)
	e.updateAccount(models.UpdateAccountInput{RulesetQuota: ptr(1)})
	first := e.createRuleset(e.key, "one")
	e.do(http.MethodPost, "/api/v1/firewall-rulesets", map[string]any{"name": "two", "region": "us-east-1", "rules": []any{}}).
		expectError(http.StatusBadRequest, models.CodeQuotaExceeded)
	e.createRuleset(e.stranger(), "theirs") // quotas are per account
	e.do(http.MethodDelete, "/api/v1/firewall-rulesets/"+first.ID, nil).expect(http.StatusOK)
	e.createRuleset(e.key, "two")
}

// A ruleset lists the instances it is attached to until they are
// terminated, and cannot be deleted while one of them holds it.
func TestRulesetInUse(t *testing.T) {
	cases := []struct {
		status     string
		until      time.Duration // StatusUntil relative to now, for terminating
		listed     bool
		deleteCode models.Code // "" when the delete succeeds
	}{
		{models.InstanceBooting, time.Minute, true, models.CodeRulesetInUse},
		{models.InstanceActive, 0, true, models.CodeRulesetInUse},
		{models.InstanceUnhealthy, 0, true, models.CodeRulesetInUse},
		{models.InstanceTerminating, time.Minute, true, ""},
		{models.InstanceTerminating, -time.Second, false, ""},
		{models.InstanceTerminated, 0, false, ""},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %v", tc.status, tc.until), func(t *testing.T) {
			e := newEnv(t)
			r := e.createRuleset(e.key, "attached")
			e.clock.Advance(time.Second) // listed oldest first
			other := e.createRuleset(e.key, "unattached")
			inst := models.Instance{AccountID: e.accountID(), Status: tc.status}
			if tc.until != 0 {
				until := e.clock.Now().Add(tc.until)
				inst.StatusUntil = &until
			}
			id := modelstest.InsertInstance(t, e.store, inst).ID
			modelstest.Attach(t, e.store, id, r.ID)

			want := []string{}
			if tc.listed {
				want = []string{id}
			}
			if got := e.ruleset(r.ID).InstanceIDs; !reflect.DeepEqual(got, want) {
				t.Fatalf("instance_ids %v, want %v", got, want)
			}
			if list := e.rulesets(); !reflect.DeepEqual(list[0].InstanceIDs, want) || len(list[1].InstanceIDs) != 0 {
				t.Fatalf("listed %+v", list)
			}
			e.do(http.MethodDelete, "/api/v1/firewall-rulesets/"+other.ID, nil).expect(http.StatusOK)
			res := e.do(http.MethodDelete, "/api/v1/firewall-rulesets/"+r.ID, nil)
			if tc.deleteCode != "" {
				res.expectError(http.StatusBadRequest, tc.deleteCode)
				if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_ruleset"); n != 3 {
					t.Fatalf("%d audit events after a refused delete", n)
				}
				return
			}
			res.expect(http.StatusOK)
			var left int64
			e.store.DB().Model(&models.InstanceRuleset{}).Where("ruleset_id = ?", r.ID).Count(&left)
			if left != 0 {
				t.Fatalf("%d attachments left behind", left)
			}
		})
	}
}

func TestRulesetOfAnotherAccountDoesNotExist(t *testing.T) {
	e := newEnv(t)
	stranger := e.stranger()
	theirs := e.createRuleset(stranger, "theirs")
	if list := e.rulesets(); len(list) != 0 {
		t.Fatalf("sees another account's rulesets: %+v", list)
	}
	for _, id := range []string{theirs.ID, models.NewID(), "nope", strings.ToUpper(theirs.ID)} {
		e.do(http.MethodGet, "/api/v1/firewall-rulesets/"+id, nil).expectError(http.StatusNotFound, models.CodeNotFound)
		e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+id, `{"name": "mine"}`).expectError(http.StatusNotFound, models.CodeNotFound)
		e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+id, `{}`).expectError(http.StatusNotFound, models.CodeNotFound)
		e.do(http.MethodDelete, "/api/v1/firewall-rulesets/"+id, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	}
	var still rulesetOut
	e.doAs(stranger, http.MethodGet, "/api/v1/firewall-rulesets/"+theirs.ID, nil).expect(http.StatusOK).data(&still)
	if !reflect.DeepEqual(still, theirs) {
		t.Fatalf("another account's ruleset changed: %+v", still)
	}
}

func TestGlobalRulesetCannotBeDeleted(t *testing.T) {
	e := newEnv(t)
	r := e.do(http.MethodDelete, "/api/v1/firewall-rulesets/global", nil).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	if !strings.Contains(r.message(), "global") {
		t.Fatalf("message %q", r.message())
	}
}

func TestConcurrentRulesetCreatesRespectTheQuota(t *testing.T) {
	e := newEnv(t)
	e.updateAccount(models.UpdateAccountInput{RulesetQuota: ptr(5)})
	codes := e.parallel(20, func(i int) (string, string, any) {
		return http.MethodPost, "/api/v1/firewall-rulesets", map[string]any{"name": fmt.Sprintf("rs%d", i), "region": "us-east-1", "rules": []any{}}
	})
	if codes["ok"] != 5 || codes[string(models.CodeQuotaExceeded)] != 15 {
		t.Fatalf("outcomes %v on %s", codes, modelstest.Backend())
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "firewall_ruleset"); n != 5 {
		t.Fatalf("%d audit events for 5 creates", n)
	}
}
