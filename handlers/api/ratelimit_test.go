package api_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// limitedEnv is an env with the contract's general limit (1/s, burst 5)
// and failed authentications limited to a burst of 3 per address, both on
// clock, which only the limiters read.
func limitedEnv(t *testing.T) (*env, *modelstest.Clock) {
	t.Helper()
	clock := modelstest.NewClock()
	limiter := func(q ratelimit.Quota) ratelimit.Limiter {
		l, err := ratelimit.NewMemory(q, ratelimit.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	e := newEnv(t, withLimits(api.Limits{
		General:         limiter(ratelimit.Quota{Rate: time.Second, Burst: 5}),
		Unauthenticated: limiter(ratelimit.Quota{Rate: 10 * time.Second, Burst: 3}),
	}))
	return e, clock
}

// expectRateLimit fails unless the RateLimit headers read limit, remaining
// and reset, and Retry-After is present exactly on a 429.
func (r *response) expectRateLimit(limit, remaining, reset int) *response {
	r.t.Helper()
	for name, want := range map[string]int{ratelimit.HeaderLimit: limit, ratelimit.HeaderRemaining: remaining, ratelimit.HeaderReset: reset} {
		if got := r.Header.Get(name); got != strconv.Itoa(want) {
			r.t.Fatalf("%s %q, want %d (status %d)", name, got, want, r.Status)
		}
	}
	retry := r.Header.Get(ratelimit.HeaderRetryAfter)
	if (r.Status == http.StatusTooManyRequests) != (retry != "") {
		r.t.Fatalf("status %d with Retry-After %q", r.Status, retry)
	}
	return r
}

// retryAfter returns Retry-After in whole seconds.
func (r *response) retryAfter() int {
	r.t.Helper()
	n, err := strconv.Atoi(r.Header.Get(ratelimit.HeaderRetryAfter))
	if err != nil || n < 1 {
		r.t.Fatalf("Retry-After %q is not a whole number of seconds", r.Header.Get(ratelimit.HeaderRetryAfter))
	}
	return n
}

func TestRateLimitBurstThenTooManyRequests(t *testing.T) {
	e, clock := limitedEnv(t)
	for i := 1; i <= 5; i++ {
		e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK).expectRateLimit(5, 5-i, i)
	}
	r := e.do(http.MethodGet, "/api/v1/regions", nil).
		expectError(http.StatusTooManyRequests, models.CodeRateLimited).expectRateLimit(5, 0, 5)
	if wait := r.retryAfter(); wait != 1 {
		t.Fatalf("Retry-After %d, want 1", wait)
	}

	clock.Advance(time.Second) // one request's worth
	e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK).expectRateLimit(5, 0, 5)
	e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusTooManyRequests, models.CodeRateLimited)

	clock.Advance(5 * time.Second) // the whole burst back
	for i := 1; i <= 5; i++ {
		e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK).expectRateLimit(5, 5-i, i)
	}
}

// Retry-After is rounded up: coming back after it always succeeds.
func TestRateLimitRetryAfterIsEnough(t *testing.T) {
	e, clock := limitedEnv(t)
	for range 5 {
		e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
	}
	clock.Advance(300 * time.Millisecond)
	r := e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	if wait := r.retryAfter(); wait != 1 {
		t.Fatalf("Retry-After %d for 0.7 s, want 1", wait)
	}
	clock.Advance(time.Duration(r.retryAfter()) * time.Second)
	e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
}

// With limiting on, successes and failures alike carry the RateLimit
// headers: the account's for authenticated requests, the address's for
// failed authentications.
func TestRateLimitHeadersOnEveryResponse(t *testing.T) {
	e, _ := limitedEnv(t)
	inactive, inactiveKey := modelstest.Owner(t, e.store, "inactive@example.com")
	status := models.AccountInactive
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, inactive.Email,
		models.UpdateAccountInput{Status: &status}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		key, path string
		status    int
		code      models.Code
		limit     int
	}{
		{"success", e.key, "/api/v1/regions", http.StatusOK, "", 5},
		{"invalid parameters", e.key, "/api/v1/audit-events?start=soon", http.StatusBadRequest, models.CodeInvalidParameters, 5},
		{"no such route", e.key, "/api/v1/nope", http.StatusNotFound, models.CodeRouteNotFound, 5},
		{"no key", "", "/api/v1/regions", http.StatusUnauthorized, models.CodeInvalidAPIKey, 3},
		{"inactive account", inactiveKey, "/api/v1/regions", http.StatusForbidden, models.CodeAccountInactive, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.doAs(tc.key, http.MethodGet, tc.path, nil)
			if tc.code == "" {
				r.expect(tc.status)
			} else {
				r.expectError(tc.status, tc.code)
			}
			if got := r.Header.Get(ratelimit.HeaderLimit); got != strconv.Itoa(tc.limit) {
				t.Fatalf("%s %q, want %d", ratelimit.HeaderLimit, got, tc.limit)
			}
			for _, h := range []string{ratelimit.HeaderRemaining, ratelimit.HeaderReset} {
				if r.Header.Get(h) == "" {
					t.Fatalf("no %s", h)
				}
			}
			if r.Header.Get(ratelimit.HeaderRetryAfter) != "" {
				t.Fatalf("Retry-After on a %d", r.Status)
			}
		})
	}
}

// The general limit is per account: every key of the account shares it,
// and another account is unaffected.
func TestRateLimitIsPerAccount(t *testing.T) {
	e, _ := limitedEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	actor, err := e.store.Authenticate(context.Background(), e.key)
	if err != nil {
		t.Fatal(err)
	}
	_, secondKey, err := e.store.CreateAPIKey(context.Background(), actor, models.CreateAPIKeyInput{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
	}
	e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	e.doAs(secondKey, http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	e.doAs(otherKey, http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK).expectRateLimit(5, 4, 1)
}

// The general limit is counted after authentication: requests with bad
// keys, even ones bearing the account's visible key prefix, never spend the
// account's budget.
func TestFailedAuthenticationDoesNotSpendAccountBudget(t *testing.T) {
	e, _ := limitedEnv(t)
	keys, err := e.store.APIKeys(context.Background(), e.owner.Actor())
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, err %v", keys, err)
	}
	lookalike := keys[0].Prefix + "_" + models.NewID() + models.NewID()
	for i := 0; i < 10; i++ {
		r := e.doAs(lookalike, http.MethodGet, "/api/v1/regions", nil)
		if r.Status != http.StatusUnauthorized && r.Status != http.StatusTooManyRequests {
			t.Fatalf("bad key %d: status %d", i, r.Status)
		}
	}
	e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK).expectRateLimit(5, 4, 1)
}

// Failed authentications are limited per client address: after the burst,
// bad keys from that address get 429 until the clock moves, while another
// address still gets 401 and a valid key from the blocked address is still
// served. This speaks real TCP from distinct loopback addresses, since
// app.Test has no client address.
func TestFailedAuthenticationIsLimitedPerAddress(t *testing.T) {
	e, clock := limitedEnv(t)
	base := e.listen()
	badKey := "cpk_00000000_" + models.NewID() + models.NewID()
	from := func(ip, key string) *response {
		t.Helper()
		return e.sendFrom(ip, key, base+"/api/v1/regions")
	}
	for i := 1; i <= 3; i++ {
		from("127.0.0.2", badKey).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey).expectRateLimit(3, 3-i, 10*i)
	}
	r := from("127.0.0.2", badKey).expectError(http.StatusTooManyRequests, models.CodeRateLimited).expectRateLimit(3, 0, 30)
	if wait := r.retryAfter(); wait != 10 {
		t.Fatalf("Retry-After %d, want 10", wait)
	}
	from("127.0.0.2", "").expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	from("127.0.0.2", e.key).expect(http.StatusOK).expectRateLimit(5, 4, 1)
	from("127.0.0.3", badKey).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey).expectRateLimit(3, 2, 10)

	clock.Advance(10 * time.Second)
	from("127.0.0.2", badKey).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
	from("127.0.0.2", badKey).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
}

// An IPv6 client is one /64: bad keys from any address in it share one
// budget, and another /64 has its own.
func TestFailedAuthenticationIsLimitedPerIPv6Slash64(t *testing.T) {
	clock := modelstest.NewClock()
	l, err := ratelimit.NewMemory(ratelimit.Quota{Rate: 10 * time.Second, Burst: 3}, ratelimit.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withLimits(api.Limits{Unauthenticated: l}), withTrustedProxies("0.0.0.0"))
	badKey := "cpk_00000000_" + models.NewID() + models.NewID()
	from := func(ip string) *response {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/regions", nil)
		req.Header.Set("Authorization", "Bearer "+badKey)
		req.Header.Set("X-Real-IP", ip)
		return e.send(req)
	}
	for i := 1; i <= 3; i++ {
		from(fmt.Sprintf("2001:db8:5:6::%x", i)).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
	}
	from("2001:db8:5:6:ffff::1").expectError(http.StatusTooManyRequests, models.CodeRateLimited)
	from("2001:db8:5:7::1").expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}

// sendFrom sends GET url over TCP from the loopback address ip, with key
// as a Bearer token ("" sends none), and checks the answer against the
// reference document.
func (e *env) sendFrom(ip, key, url string) *response {
	e.t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true}}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("from %s: %v", ip, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	e.validate(e.t, req.Method, req.URL.RequestURI(), res.StatusCode, res.Header, raw)
	return &response{t: e.t, Status: res.StatusCode, Header: res.Header, Body: raw}
}

// The env checks every 429 against the reference document like any other
// answer: ours passes, and the same answer with another code would not.
func TestRateLimitedAnswersAreValidated(t *testing.T) {
	e, _ := limitedEnv(t)
	if e.spec == nil {
		t.Skip("the reference document is absent; nothing validates responses")
	}
	for range 5 {
		e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
	}
	r := e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusTooManyRequests, models.CodeRateLimited)

	rec := &failRecorder{TB: t}
	e.spec.ValidateResponse(rec, http.MethodGet, "/api/v1/regions", r.Status, r.Header, r.Body)
	if rec.failed {
		t.Fatalf("our 429 does not validate: %s", rec.msg)
	}
	wrong := []byte(`{"error":{"code":"global/quota-exceeded","message":"Too many requests","request_id":"x"}}`)
	e.spec.ValidateResponse(rec, http.MethodGet, "/api/v1/regions", r.Status, r.Header, wrong)
	if !rec.failed {
		t.Fatal("a 429 with another code passed validation")
	}
}

// failRecorder notes a validation failure instead of failing the test.
type failRecorder struct {
	testing.TB
	failed bool
	msg    string
}

func (f *failRecorder) Helper() {}

func (f *failRecorder) Errorf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}

// A database that cannot answer is not a key guesser: failed lookups are
// answered as the server's failure, never as 429s that would go on
// refusing everyone behind the address once the database is back.
func TestDatabaseFailureDoesNotSpendTheAddressBudget(t *testing.T) {
	e, _ := limitedEnv(t)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	// Straight to the app: the reference documents no 5xx for this route.
	for i := 0; i < 10; i++ {
		req, _ := http.NewRequest(http.MethodGet, "/api/v1/regions", nil)
		req.Header.Set("Authorization", "Bearer cpk_0123456789abcdef0123456789abcdef")
		res, _ := testserver.Test(t, e.app, req)
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode < 500 {
			t.Fatalf("request %d with the database gone: %d; want a 5xx, never 429", i+1, res.StatusCode)
		}
	}
}
