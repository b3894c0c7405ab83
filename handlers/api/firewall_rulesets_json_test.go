package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"cloudplane/models"
)

// The hand-encoded ruleset list is byte for byte what ok() wrote with
// encoding/json: every escape, nil and empty rules, ports left out when
// empty, nil and empty instance ids, unknown regions.
func TestRulesetListEncodesAsEncodingJSON(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))
	for _, list := range [][]models.FirewallRulesetView{nil, {}, rulesetViews(created)} {
		out := make([]rulesetJSON, len(list))
		for i := range list {
			out[i] = newRulesetJSON(&list[i])
		}
		want, err := json.Marshal(dataBody[[]rulesetJSON]{Data: out})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRulesetList(nil, list); !bytes.Equal(got, want) {
			t.Fatalf("encoded\n%s\nwant\n%s", got, want)
		}
	}
}

func rulesetViews(created time.Time) []models.FirewallRulesetView {
	ports := [][]int{nil, {}, {22, 22}, {1, 65535}, {-1, 0, 7}}
	var out []models.FirewallRulesetView
	for i, s := range trickyStrings {
		var rules []models.FirewallRule
		for j := range i % 4 {
			rules = append(rules, models.FirewallRule{Protocol: s, PortRange: ports[(i+j)%len(ports)],
				SourceNetwork: trickyStrings[(i+j)%len(trickyStrings)], Description: s})
		}
		if i == 1 {
			rules = []models.FirewallRule{}
		}
		ids := [][]string{nil, {}, {s}, {s, "b"}}[i%4]
		out = append(out, models.FirewallRulesetView{
			FirewallRuleset: models.FirewallRuleset{ID: s, Name: s, RegionName: []string{"us-east-1", s, "us-west-1"}[i%3],
				Rules: rules, CreatedAt: created.Add(time.Duration(i) * time.Hour)},
			InstanceIDs: ids,
		})
	}
	return out
}

// BenchmarkRulesetListJSON encodes 50 rulesets of two rules each.
func BenchmarkRulesetListJSON(b *testing.B) {
	rules := []models.FirewallRule{{Protocol: "tcp", PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0", Description: "ssh"},
		{Protocol: "icmp", SourceNetwork: "203.0.113.0/24", Description: "ping"}}
	list := make([]models.FirewallRulesetView, 50)
	for i := range list {
		list[i] = models.FirewallRulesetView{FirewallRuleset: models.FirewallRuleset{ID: models.NewID(), Name: "ruleset",
			RegionName: "us-west-1", Rules: rules, CreatedAt: time.Now()}, InstanceIDs: []string{models.NewID()}}
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = appendRulesetList(buf[:0], list)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out := make([]rulesetJSON, len(list))
			for i := range list {
				out[i] = newRulesetJSON(&list[i])
			}
			if _, err := json.Marshal(dataBody[[]rulesetJSON]{Data: out}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
