package webhooks_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/webhooks"
)

// Without AllowPrivate the dialer refuses loopback, private, link-local and
// metadata addresses when it connects, whatever the URL's host resolves
// to, and plain http is refused outright. The store here accepts such URLs
// (as it would a public name that a DNS change later points inward), so
// the refusal is the dialer's.
func TestPrivateDestinationsAreRefusedAtConnectTime(t *testing.T) {
	h := newGuardedHarness(t, webhooks.Config{})
	tlsReceiver := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("a guarded dispatcher reached a loopback receiver")
	}))
	t.Cleanup(tlsReceiver.Close)
	port := tlsReceiver.Listener.Addr().(*net.TCPAddr).Port
	cases := []struct {
		name, url, kind string
	}{
		{"loopback address", tlsReceiver.URL, webhooks.KindBlocked},
		{"name resolving to loopback", "https://localhost:" + strconv.Itoa(port) + "/", webhooks.KindBlocked},
		{"IPv6 loopback", "https://[::1]:" + strconv.Itoa(port) + "/", webhooks.KindBlocked},
		{"private network", "https://10.1.2.3/hook", webhooks.KindBlocked},
		{"cloud metadata", "https://169.254.169.254/latest/meta-data", webhooks.KindBlocked},
		{"plain http", "http://127.0.0.1:" + strconv.Itoa(port) + "/", webhooks.KindBlocked},
	}
	h.start()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.webhook(tc.url)
			h.ticket(tc.name)
			r := h.next()
			if r.attempt.Succeeded || r.attempt.ErrorKind != tc.kind || r.attempt.RemoteAddr != "" {
				t.Fatalf("attempt %+v", r.attempt)
			}
			if tc.name != "plain http" && !strings.Contains(r.attempt.Error, "prohibited") {
				t.Fatalf("error %q does not say the destination is prohibited", r.attempt.Error)
			}
		})
	}
}

// Network failures are told apart in the log.
func TestNetworkFailuresAreClassified(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(untrusted.Close)
	refusedURL := "http://" + testserver.RefusedAddress(t) + "/"
	h.start()
	for _, tc := range []struct{ url, kind string }{
		{untrusted.URL, webhooks.KindTLS},
		{refusedURL, webhooks.KindRefused},
	} {
		h.webhook(tc.url)
		h.ticket(tc.kind)
		if r := h.next(); r.attempt.ErrorKind != tc.kind || r.attempt.Error == "" {
			t.Errorf("%s: attempt kind %q error %q, want %s", tc.url, r.attempt.ErrorKind, r.attempt.Error, tc.kind)
		}
	}
	page, _ := h.store.WebhookDeliveries(h.ctx, h.owner, models.DeliveryFilter{Statuses: []string{models.DeliveryPending}})
	if len(page.Deliveries) != 2 {
		t.Fatalf("%d pending deliveries, want both awaiting a retry", len(page.Deliveries))
	}
}
