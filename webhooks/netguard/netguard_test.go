package netguard_test

import (
	"net/netip"
	"testing"

	"cloudplane/webhooks/netguard"
)

// The check made when a URL is saved and the dialer's guard agree: an
// address refused at connect time is refused when its URL is saved, one
// allowed there is stored, and the dialer's refusal is recognised as such.
func TestSaveTimeCheckAndDialGuardAgree(t *testing.T) {
	cases := []struct {
		addr    string
		blocked bool
	}{
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"169.254.169.254", true}, {"100.64.0.1", true},
		{"::1", true}, {"fd00::1", true}, {"8.8.8.8", false}, {"2606:4700::1111", false},
	}
	for _, tc := range cases {
		a := netip.MustParseAddr(tc.addr)
		host, network := a.String(), "tcp4"
		if a.Is6() {
			host, network = "["+host+"]", "tcp6"
		}
		err := netguard.Control(network, host+":443", nil)
		if (err != nil) != tc.blocked || (err != nil && !netguard.Blocked(err)) {
			t.Errorf("dial %s: %v, want blocked %v", host, err, tc.blocked)
		}
		stored, problem := netguard.Guard{}.CheckURL("https://"+host+"/", false)
		if (problem != "") != tc.blocked {
			t.Errorf("save https://%s/: stored %q, problem %q; want refused %v", host, stored, problem, tc.blocked)
		}
		if _, problem := (netguard.Guard{}).CheckURL("https://"+host+"/", true); problem != "" {
			t.Errorf("save https://%s/ with private destinations allowed: %s", host, problem)
		}
	}
	if netguard.Blocked(nil) {
		t.Error("no error reads as blocked")
	}
}
