// Package netguard keeps webhooks off internal destinations, in one
// place for both moments: when a URL is saved (Guard, which models is
// given) and when the dispatcher connects (Control, Blocked). Both judge
// addresses by the same IANA special-purpose registries (code.dny.dev/ssrf):
// loopback, private, link-local (cloud metadata), CGNAT, multicast and the
// rest. It imports no cloudplane package.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"
)

// registries judges addresses, on any port: receivers often listen on
// 8443 and the like; the address is what keeps requests off internal
// services.
var registries = ssrf.New(ssrf.WithAnyPort())

// Control is the dialer's check (net.Dialer.Control): it refuses to
// connect to an internal address, after DNS resolution, so a name that
// resolves to one, or is rebound to one, is refused.
func Control(network, address string, conn syscall.RawConn) error {
	return registries.Safe(network, address, conn)
}

// Blocked reports whether err is Control refusing a destination.
func Blocked(err error) bool {
	return errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedPort) ||
		errors.Is(err, ssrf.ErrProhibitedNetwork)
}

// lookupTimeout bounds the DNS lookup made when a URL is saved.
const lookupTimeout = 2 * time.Second

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard judges webhook URLs when they are saved (models.WebhookGuard).
// This is the early, friendly check; Control refuses internal addresses
// again at connect time, whatever a name resolves to then.
type Guard struct {
	// Resolver looks up a URL's host; nil means the system's.
	Resolver Resolver
}

// internalAddress is the field message for any internal destination.
const internalAddress = "must not point to a private, loopback or link-local address"

// CheckURL returns the URL to store or why it is refused: https (or http
// when allowPrivate), no credentials, and, unless allowPrivate, no
// internal address in any spelling. What is stored is what will be
// dialled: a host written as a number becomes the address it stands for.
func (Guard) CheckURL(raw string, allowPrivate bool) (string, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return raw, "is required, e.g. https://example.com/hooks/cloudplane"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Hostname() == "" || len(raw) > 2048 {
		return raw, "must be an absolute URL of at most 2048 characters, e.g. https://example.com/hooks"
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return raw, "must use https"
	}
	if u.User != nil {
		return raw, "must not contain credentials; the token is sent in the Authorization header"
	}
	name, problem := lookupName(u.Hostname())
	if problem != "" {
		return raw, problem
	}
	host := strings.TrimRight(name, ".")
	addr, isAddr, problem := hostAddr(host)
	if problem != "" {
		return raw, problem
	}
	// What is checked is what will be dialled: 0x7f.1 is stored as
	// 127.0.0.1 and ⓛⓞⓒⓐⓛⓗⓞⓢⓣ as localhost, which no resolver can read
	// differently.
	port := u.Port()
	u.Host = name
	if isAddr {
		u.Host = addr.String()
		if addr.Is6() {
			u.Host = "[" + u.Host + "]"
		}
	}
	if port != "" {
		u.Host += ":" + port
	}
	internal := host == "localhost" || strings.HasSuffix(host, ".localhost") ||
		isAddr && registries.SafeAddr(addr) != nil
	if internal && !allowPrivate {
		return raw, internalAddress
	}
	u.Fragment = ""
	if len(u.String()) > 2048 {
		return raw, "must be at most 2048 characters once normalised"
	}
	return u.String(), ""
}

// lookupName is host as resolvers will look it up: UTS-46 (IDNA) with the
// lookup profile, which maps full-width digits and dots, circled letters
// and upper case to what they stand for and refuses invalid labels (bad
// punycode, joiners, disallowed characters), lower case, ASCII. An IPv6
// literal is only lowered. A plain ASCII name without punycode labels is
// only lowered too: the mapping would change nothing else in it, and the
// lookup profile's strict letters-digits-hyphens rule would refuse names
// (with "_", say) that resolvers and the dialer accept.
func lookupName(host string) (string, string) {
	if strings.Contains(host, ":") {
		if _, err := netip.ParseAddr(host); err != nil {
			return "", "is not a valid IPv6 address"
		}
		return strings.ToLower(host), ""
	}
	lower := strings.ToLower(host)
	if isPlainASCIIName(lower) {
		return lower, ""
	}
	name, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", "has a host name that is not a valid domain name"
	}
	return strings.ToLower(name), ""
}

// isPlainASCIIName reports whether a lower-case host is ASCII without any
// punycode (xn--) label.
func isPlainASCIIName(host string) bool {
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			return false
		}
	}
	for label := range strings.SplitSeq(host, ".") {
		if strings.HasPrefix(label, "xn--") {
			return false
		}
	}
	return true
}

// hostAddr reads host as an IP address in any spelling resolvers and
// browsers accept: IPv6 (mapped IPv4 and NAT64 included, for the guard to
// judge) and the inet_aton forms of IPv4, where 2130706433, 0177.0.0.1
// and 0x7f.1 all mean 127.0.0.1. A host whose last label is a number but
// that is no valid address is refused: browsers refuse it too, and no
// public name ends in a number.
func hostAddr(host string) (addr netip.Addr, isAddr bool, problem string) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone(""), true, ""
	}
	labels := strings.Split(host, ".")
	if !isNumber(labels[len(labels)-1]) {
		return netip.Addr{}, false, ""
	}
	if len(labels) > 4 {
		return netip.Addr{}, false, "is not a valid IPv4 address"
	}
	var v uint64
	for i, label := range labels {
		n, err := parseIPv4Part(label)
		last := i == len(labels)-1
		if err != nil || !last && n > 255 || last && n >= 1<<(8*(5-len(labels))) {
			return netip.Addr{}, false, "is not a valid IPv4 address"
		}
		if last {
			v = v<<(8*(5-len(labels))) | n
		} else {
			v = v<<8 | n
		}
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, ""
}

// isNumber reports whether a label looks like a number (digits, or 0x
// and hex digits), valid or not: the WHATWG URL standard's "ends in a
// number".
func isNumber(label string) bool {
	digits, hex := label, false
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		digits, hex = rest, true
	}
	for _, c := range digits {
		if !('0' <= c && c <= '9' || hex && 'a' <= c && c <= 'f') {
			return false
		}
	}
	return digits != "" || hex
}

func parseIPv4Part(label string) (uint64, error) {
	switch {
	case label == "":
		return 0, fmt.Errorf("empty")
	case strings.HasPrefix(label, "0x"):
		if label == "0x" {
			return 0, nil
		}
		return strconv.ParseUint(label[2:], 16, 32)
	case len(label) > 1 && label[0] == '0':
		return strconv.ParseUint(label[1:], 8, 32)
	default:
		return strconv.ParseUint(label, 10, 32)
	}
}

// CheckHost returns why the URL's host name, resolved now, is refused
// (it resolves to an internal address), or "", so the owner learns at once
// rather than from failed deliveries. The lookup is short and its failure
// is no refusal: DNS that is slow or down here, or a name not yet
// published, says nothing about where the name will point, and saving must
// not hang on someone else's DNS; Control checks every connection anyway
// (DNS rebinding too). Hosts written as addresses are CheckURL's.
func (g Guard) CheckHost(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := strings.TrimRight(u.Hostname(), ".")
	if _, isAddr, _ := hostAddr(host); isAddr {
		return ""
	}
	resolver := g.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if registries.SafeAddr(a.Unmap()) != nil {
			return fmt.Sprintf("%s: %s resolves to %s", internalAddress, host, a.Unmap())
		}
	}
	return ""
}
