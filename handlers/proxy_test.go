package handlers

import (
	"net/http"
	"testing"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// Failed authentications are limited per client. Behind a trusted proxy
// the client is the one the proxy names; anyone else's header is ignored.
func TestClientAddressBehindProxy(t *testing.T) {
	cases := []struct {
		name    string
		proxies []string
		// whether a second bad request naming another client is limited
		secondLimited bool
	}{
		{"trusted proxy names distinct clients", []string{"127.0.0.1"}, false},
		{"untrusted peer cannot pick its address", []string{"192.0.2.1"}, true},
		{"no proxies configured", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := modelstest.Open(t)
			unauth, err := ratelimit.NewMemory(ratelimit.Quota{Rate: 3600e9, Burst: 1})
			if err != nil {
				t.Fatal(err)
			}
			app := New(Config{Store: store, Limits: api.Limits{Unauthenticated: unauth}, TrustedProxies: tc.proxies})
			base := testserver.Serve(t, app).URL
			status := func(client string) int {
				req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/regions", nil)
				req.Header.Set("Authorization", "Bearer cpk_bad")
				req.Header.Set("X-Real-IP", client)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res.StatusCode
			}
			if got := status("198.51.100.1"); got != http.StatusUnauthorized {
				t.Fatalf("first bad key: %d", got)
			}
			want := http.StatusUnauthorized
			if tc.secondLimited {
				want = http.StatusTooManyRequests
			}
			if got := status("198.51.100.2"); got != want {
				t.Fatalf("bad key from another named client: %d, want %d", got, want)
			}
		})
	}
}
