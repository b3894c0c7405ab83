package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The list's body, now written from the store's cached bytes, is what ok()
// wrote with encoding/json (rulesetOut has rulesetJSON's fields and tags),
// HTML escaping included; it shows a rename at once, and an instance
// leaves it when its terminating ends.
func TestRulesetListBodyIsEncodingJSON(t *testing.T) {
	e := newEnv(t)
	rules := []models.FirewallRule{sshRule, {Protocol: "icmp", SourceNetwork: "203.0.113.0/24", Description: `<ping> & "echo"`}}
	var created rulesetOut
	e.do(http.MethodPost, "/api/v1/firewall-rulesets",
		map[string]any{"name": "web <b>&</b> \u2028", "region": "us-west-1", "rules": rules}).expect(http.StatusOK).data(&created)
	e.clock.Advance(time.Second)
	e.createRuleset(e.key, "empty")
	until := e.clock.Now().Add(time.Minute)
	inst := modelstest.InsertInstance(t, e.store, models.Instance{AccountID: e.accountID(),
		Status: models.InstanceTerminating, StatusUntil: &until})
	modelstest.Attach(t, e.store, inst.ID, created.ID)

	list := func() []rulesetOut {
		t.Helper()
		res := e.do(http.MethodGet, "/api/v1/firewall-rulesets", nil).expect(http.StatusOK)
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
		var body struct {
			Data []rulesetOut `json:"data"`
		}
		res.decode(&body)
		want, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Body, want) {
			t.Fatalf("body\n%s\nencoding/json writes\n%s", res.Body, want)
		}
		return body.Data
	}
	got := list()
	if len(got) != 2 || got[0].Name != created.Name || !reflect.DeepEqual(got[0].Rules, rules) ||
		!reflect.DeepEqual(got[0].InstanceIDs, []string{inst.ID}) {
		t.Fatalf("listed %+v", got)
	}
	e.do(http.MethodPatch, "/api/v1/firewall-rulesets/"+created.ID, map[string]any{"name": "renamed"}).expect(http.StatusOK)
	if got := list(); got[0].Name != "renamed" || len(got[0].InstanceIDs) != 1 {
		t.Fatalf("after a rename, listed %+v", got)
	}
	e.clock.Advance(time.Minute)
	if got := list(); got[0].Name != "renamed" || len(got[0].InstanceIDs) != 0 {
		t.Fatalf("after the instance's terminating ended, listed %+v", got)
	}
}
