package ratelimit_test

import (
	"testing"

	"cloudplane/handlers/ratelimit"
)

// Addresses in one IPv6 /64 share a key; other /64s, and every IPv4
// address, have their own.
func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"2001:db8:1:2::1", "2001:DB8:1:2:abcd::9"},
		{"fe80::1%eth0", "fe80::2"},
		{"198.51.100.7", "::ffff:198.51.100.7"},
	} {
		if ka, kb := ratelimit.AddressKey(tc.a), ratelimit.AddressKey(tc.b); ka != kb {
			t.Errorf("%s -> %q and %s -> %q: want one key", tc.a, ka, tc.b, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"2001:db8:1:2::1", "2001:db9:1:2::1"},
		{"198.51.100.7", "198.51.100.8"},
		{"::ffff:198.51.100.7", "::ffff:198.51.100.8"},
		{"not an address", "also not one"},
	} {
		if ka, kb := ratelimit.AddressKey(tc.a), ratelimit.AddressKey(tc.b); ka == kb {
			t.Errorf("%s and %s share key %q: want one each", tc.a, tc.b, ka)
		}
	}
	if got := ratelimit.AddressKey("2001:db8:1:2:3:4:5:6"); got != "2001:db8:1:2::/64" {
		t.Errorf("key %q, want the /64 written as a prefix", got)
	}
}
