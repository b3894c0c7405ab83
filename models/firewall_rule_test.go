package models

import (
	"strings"
	"testing"
)

func TestNormalizeRules(t *testing.T) {
	tcp22 := func(network string) FirewallRule {
		return FirewallRule{Protocol: ProtocolTCP, PortRange: []int{22, 22}, SourceNetwork: network}
	}
	cases := []struct {
		name    string
		rule    FirewallRule
		field   string // the failing field, "" when the rule is valid
		network string // the stored source network of a valid rule
	}{
		{"cidr kept", tcp22("203.0.113.0/24"), "", "203.0.113.0/24"},
		{"bare address means /32", tcp22("203.0.113.7"), "", "203.0.113.7/32"},
		{"anywhere", tcp22("0.0.0.0/0"), "", "0.0.0.0/0"},
		{"icmp without ports", FirewallRule{Protocol: ProtocolICMP, SourceNetwork: "0.0.0.0/0"}, "", "0.0.0.0/0"},
		{"all with ports", FirewallRule{Protocol: ProtocolAll, PortRange: []int{1, 65535}, SourceNetwork: "0.0.0.0/0"}, "", "0.0.0.0/0"},
		{"protocol missing", FirewallRule{PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0"}, "protocol", ""},
		{"protocol unknown", FirewallRule{Protocol: "sctp", PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0"}, "protocol", ""},
		{"tcp needs ports", FirewallRule{Protocol: ProtocolTCP, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"udp needs ports", FirewallRule{Protocol: ProtocolUDP, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"all needs ports", FirewallRule{Protocol: ProtocolAll, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"icmp refuses ports", FirewallRule{Protocol: ProtocolICMP, PortRange: []int{1, 1}, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"one port", FirewallRule{Protocol: ProtocolTCP, PortRange: []int{22}, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"port zero", FirewallRule{Protocol: ProtocolTCP, PortRange: []int{0, 22}, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"port too high", FirewallRule{Protocol: ProtocolTCP, PortRange: []int{22, 65536}, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"min above max", FirewallRule{Protocol: ProtocolTCP, PortRange: []int{23, 22}, SourceNetwork: "0.0.0.0/0"}, "port_range", ""},
		{"network missing", tcp22(""), "source_network", ""},
		{"network garbage", tcp22("example.com"), "source_network", ""},
		{"ipv6", tcp22("2001:db8::/32"), "source_network", ""},
		{"host bits set", tcp22("203.0.113.7/24"), "source_network", ""},
		{"private", tcp22("10.0.0.0/8"), "source_network", ""},
		{"loopback", tcp22("127.0.0.1"), "source_network", ""},
		{"unspecified address", tcp22("0.0.0.0"), "source_network", ""},
		{"carrier-grade nat", tcp22("100.64.1.0/24"), "source_network", ""},
		{"this network", tcp22("0.1.2.3"), "source_network", ""},
		{"broadcast", tcp22("255.255.255.255"), "source_network", ""},
		{"description too long", FirewallRule{Protocol: ProtocolICMP, SourceNetwork: "0.0.0.0/0", Description: strings.Repeat("é", 129)}, "description", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f FieldErrors
			out := normalizeRules(&f, "rules", []FirewallRule{tcp22("0.0.0.0/0"), tc.rule})
			if tc.field == "" {
				if err := f.Err(); err != nil {
					t.Fatalf("unexpected %v", err)
				}
				if out[1].SourceNetwork != tc.network {
					t.Fatalf("source_network %q, want %q", out[1].SourceNetwork, tc.network)
				}
				return
			}
			if want := "rules.1." + tc.field; !f.Has(want) || len(f.fields) != 1 {
				t.Fatalf("errors %v, want only %s", f.fields, want)
			}
		})
	}
}

func TestNormalizeRulesBoundsTheList(t *testing.T) {
	rules := make([]FirewallRule, MaxFirewallRules+1)
	for i := range rules {
		rules[i] = FirewallRule{Protocol: ProtocolICMP, SourceNetwork: "0.0.0.0/0"}
	}
	var f FieldErrors
	normalizeRules(&f, "data", rules[:MaxFirewallRules])
	if err := f.Err(); err != nil {
		t.Fatalf("%d rules refused: %v", MaxFirewallRules, err)
	}
	normalizeRules(&f, "data", rules)
	if !f.Has("data") {
		t.Fatalf("%d rules accepted", len(rules))
	}
}
