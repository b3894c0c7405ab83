package handlers

import (
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models/modelstest"
)

// The RateLimit headers of an answer the guard did not count (the OpenAPI
// document) describe the bucket refused API keys count against: after
// one refused key, one request fewer remains in it, not a full bucket.
func TestUncountedAnswersDescribeTheAddressBucketKeysCountAgainst(t *testing.T) {
	store := modelstest.Open(t)
	limiter, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Minute, Burst: 3})
	if err != nil {
		t.Fatal(err)
	}
	app, _ := jsonLogApp(t, store, Config{Limits: api.Limits{Unauthenticated: limiter}})
	addr := serveApp(t, app)
	unknownKey := "Authorization: Bearer cpk_00000000_" + zeros(64) + "\r\n"
	res, _ := rawRequest(t, addr, get("/api/v1/regions", unknownKey))
	if res.StatusCode != 401 || res.Header.Get(ratelimit.HeaderRemaining) != "2" {
		t.Fatalf("refused key: status %d, remaining %q; want 401 and 2", res.StatusCode, res.Header.Get(ratelimit.HeaderRemaining))
	}
	res, _ = rawRequest(t, addr, get("/api/v1/openapi.json", ""))
	if got := res.Header.Get(ratelimit.HeaderRemaining); got != "2" {
		t.Fatalf("the OpenAPI document says %q requests remain; the refused key left 2", got)
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
