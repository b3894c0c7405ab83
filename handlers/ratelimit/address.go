package ratelimit

import "net/netip"

// AddressKey is the part of a client address that per-address limits
// count against: an IPv4 address whole, an IPv6 address by its /64. A
// single subscriber is routinely given a whole /64 (RFC 6177), so keying
// on the full IPv6 address would hand one client 2^64 budgets. An IPv4
// address mapped into IPv6 counts as the IPv4 one. Anything that is not an
// address is returned as it is, so it still has a bucket of its own.
func AddressKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return AddressPrefix(addr).String()
}

// AddressPrefix is AddressKey for a parsed address: a /32 for IPv4 (and
// IPv4 mapped into IPv6), the /64 for IPv6.
func AddressPrefix(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap().WithZone("")
	bits := 64
	if addr.Is4() {
		bits = 32
	}
	p, _ := addr.Prefix(bits) // never fails for these widths
	return p
}
