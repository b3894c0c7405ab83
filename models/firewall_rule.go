package models

import (
	"fmt"
	"net/netip"
	"unicode/utf8"
)

// MaxFirewallRules bounds one list of rules (inbound, a ruleset, global).
const MaxFirewallRules = 100

// Network protocols a rule can name.
const (
	ProtocolTCP  = "tcp"
	ProtocolUDP  = "udp"
	ProtocolICMP = "icmp"
	ProtocolAll  = "all"
)

// FirewallRule allows inbound traffic. It is both the stored shape and the
// API shape, so the JSON tags are the contract's field names.
type FirewallRule struct {
	Protocol      string `json:"protocol"`
	PortRange     []int  `json:"port_range,omitempty"`
	SourceNetwork string `json:"source_network"`
	Description   string `json:"description"`
}

// DefaultInboundRule is what a new account starts with: SSH from anywhere.
func DefaultInboundRule() FirewallRule {
	return FirewallRule{Protocol: ProtocolTCP, PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0", Description: "Allow SSH from anywhere"}
}

// normalizeRules validates a list of rules, adding failures under
// "<field>.<index>.<rule field>", and returns the list with source networks
// in canonical CIDR form ("1.2.3.4" becomes "1.2.3.4/32").
func normalizeRules(f *FieldErrors, field string, rules []FirewallRule) []FirewallRule {
	if len(rules) > MaxFirewallRules {
		f.Add(field, fmt.Sprintf("at most %d rules are allowed, got %d", MaxFirewallRules, len(rules)))
		return nil
	}
	out := make([]FirewallRule, len(rules))
	for i, r := range rules {
		at := fmt.Sprintf("%s.%d.", field, i)
		out[i] = r.normalize(f, at)
	}
	return out
}

func (r FirewallRule) normalize(f *FieldErrors, at string) FirewallRule {
	switch r.Protocol {
	case ProtocolTCP, ProtocolUDP, ProtocolAll:
		if len(r.PortRange) == 0 {
			f.Add(at+"port_range", "is required for protocol "+r.Protocol)
		}
	case ProtocolICMP:
		if len(r.PortRange) != 0 {
			f.Add(at+"port_range", "is not allowed for protocol icmp")
		}
	case "":
		f.Add(at+"protocol", "is required (tcp, udp, icmp or all)")
	default:
		f.Add(at+"protocol", fmt.Sprintf("must be tcp, udp, icmp or all, not %q", r.Protocol))
	}
	if len(r.PortRange) != 0 {
		if len(r.PortRange) != 2 {
			f.Add(at+"port_range", "must be [min, max]")
		} else if lo, hi := r.PortRange[0], r.PortRange[1]; lo < 1 || hi > 65535 || lo > hi {
			f.Add(at+"port_range", "ports must be within 1-65535 with min <= max")
		}
	}
	switch n := utf8.RuneCountInString(r.Description); {
	case !checkMultiline(f, at+"description", r.Description):
	case n > 128:
		f.Add(at+"description", fmt.Sprintf("must be at most 128 characters, got %d", n))
	}
	network, err := normalizeSourceNetwork(r.SourceNetwork)
	if err != "" {
		f.Add(at+"source_network", err)
	}
	r.SourceNetwork = network
	if r.PortRange != nil {
		r.PortRange = append([]int(nil), r.PortRange...)
	}
	return r
}

// normalizeSourceNetwork accepts a public IPv4 address or CIDR block (or
// 0.0.0.0/0 for anywhere) and returns it in CIDR form, or a reason.
func normalizeSourceNetwork(s string) (string, string) {
	if s == "" {
		return "", "is required, e.g. 0.0.0.0/0 or 203.0.113.7"
	}
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		addr, aerr := netip.ParseAddr(s)
		if aerr != nil {
			return s, fmt.Sprintf("%q is not an IPv4 address or CIDR block", s)
		}
		prefix = netip.PrefixFrom(addr, addr.BitLen())
	}
	if !prefix.Addr().Is4() {
		return s, fmt.Sprintf("%q is not IPv4", s)
	}
	if prefix.Masked() != prefix {
		return s, fmt.Sprintf("%q has host bits set; did you mean %s?", s, prefix.Masked())
	}
	if prefix.Bits() == 0 {
		return prefix.String(), ""
	}
	if !isPublicIPv4(prefix.Addr()) {
		return s, fmt.Sprintf("%q is not a public network", s)
	}
	return prefix.String(), ""
}

// reservedIPv4 are blocks that netip's predicates do not flag but that no
// packet from the internet comes from.
var reservedIPv4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and the broadcast address
}

// isPublicIPv4 reports whether a (the first address of a source network)
// is routable on the internet.
func isPublicIPv4(a netip.Addr) bool {
	if a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reservedIPv4 {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// requireRules is normalizeRules for a list that must be given: nil means
// the field was left out (an empty list is a valid choice: no rules).
func requireRules(f *FieldErrors, field string, rules []FirewallRule) []FirewallRule {
	if rules == nil {
		f.Add(field, "is required: a list of rules, empty for none")
		return nil
	}
	return normalizeRules(f, field, rules)
}
