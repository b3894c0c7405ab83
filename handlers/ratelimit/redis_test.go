package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/throttled/throttled/v2/store/storetest"

	"cloudplane/handlers/testserver"
)

const defaultTestRedisURL = "redis://127.0.0.1:6379/0"

// runID keeps concurrent or aborted runs from seeing each other's keys.
var runID = func() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

var prefixSeq atomic.Int64

// probeRedis checks once per test binary, with retries off, so a missing
// Redis costs one failed dial instead of go-redis's retry budget per test.
var probeRedis = sync.OnceValues(func() (*redis.Options, error) {
	url := os.Getenv("CLOUDPLANE_TEST_REDIS_URL")
	if url == "" {
		url = defaultTestRedisURL
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("CLOUDPLANE_TEST_REDIS_URL: %w", err)
	}
	probe := *opt
	probe.MaxRetries, probe.DialerRetries = -1, 1
	c := redis.NewClient(&probe)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		// Address and db only: the URL may carry a password.
		return opt, fmt.Errorf("no Redis at %s db %d (%w); start one or set CLOUDPLANE_TEST_REDIS_URL", opt.Addr, opt.DB, err)
	}
	return opt, nil
})

// testRedis connects to the test Redis or skips the test, and returns a key
// prefix unique to this test whose keys are deleted afterwards.
func testRedis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	opt, err := probeRedis()
	if opt == nil {
		t.Fatal(err) // a malformed URL is a mistake, not a missing service
	}
	if err != nil {
		t.Skip(err)
	}
	c := redis.NewClient(opt)
	prefix := "cloudplane-test:ratelimit:" + runID + ":" + strconv.FormatInt(prefixSeq.Add(1), 10) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleaning up %s*: %v", prefix, err)
		}
		c.Close()
	})
	return c, prefix
}

func TestRedisScenarios(t *testing.T) {
	c, prefix := testRedis(t)
	runScenarios(t, func(t *testing.T, q Quota, clock *fakeClock) Limiter {
		l, err := NewRedis(c, prefix, q, WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

// Uses the Redis server clock, as production does.
func TestRedisStoreConformance(t *testing.T) {
	c, prefix := testRedis(t)
	storetest.TestGCRAStoreCtx(t, &redisStore{c: c, prefix: prefix})
}

// TTLs must round up (never expire a key before its TAT passes), with a
// floor of one second; checked via PTTL, no waiting.
func TestRedisTTLs(t *testing.T) {
	c, prefix := testRedis(t)
	st := &redisStore{c: c, prefix: prefix}
	ctx := context.Background()
	pttl := func(key string, lo, hi time.Duration) {
		t.Helper()
		got, err := c.PTTL(ctx, prefix+key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got <= lo || got > hi {
			t.Errorf("PTTL %s = %v, want in (%v, %v]", key, got, lo, hi)
		}
	}
	if ok, err := st.SetIfNotExistsWithTTL(ctx, "a", 1, 1500*time.Millisecond+1); !ok || err != nil {
		t.Fatalf("SetIfNotExists: %v %v", ok, err)
	}
	pttl("a", 1400*time.Millisecond, 1501*time.Millisecond)
	if ok, err := st.CompareAndSwapWithTTL(ctx, "a", 1, 2, 2*time.Second+1); !ok || err != nil {
		t.Fatalf("CompareAndSwap: %v %v", ok, err)
	}
	pttl("a", 1900*time.Millisecond, 2001*time.Millisecond)
	if ok, err := st.SetIfNotExistsWithTTL(ctx, "b", 1, 10*time.Millisecond); !ok || err != nil {
		t.Fatalf("SetIfNotExists: %v %v", ok, err)
	}
	pttl("b", 900*time.Millisecond, time.Second)
}

func mustRedis(t *testing.T, c redis.UniversalClient, prefix string, q Quota, opts ...Option) Limiter {
	t.Helper()
	l, err := NewRedis(c, prefix, q, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func allowT(t *testing.T, l Limiter, key string) Result {
	t.Helper()
	r, err := l.Allow(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Two replicas on one Redis enforce one quota; neither replica's local
// rejection cache may let a request through that Redis would refuse.
func TestRedisSharedAcrossReplicas(t *testing.T) {
	c, prefix := testRedis(t)
	clock := newFakeClock()
	a := mustRedis(t, c, prefix, apiQuota, WithClock(clock.Now))
	b := mustRedis(t, c, prefix, apiQuota, WithClock(clock.Now))
	for i := 0; i < 5; i++ {
		if r := allowT(t, a, "acct"); !r.Allowed {
			t.Fatalf("request %d on replica a rejected: %+v", i, r)
		}
	}
	if r, want := allowT(t, b, "acct"), rejected(5, 5*time.Second, time.Second); r != want {
		t.Fatalf("replica b after a's burst: got %+v, want %+v", r, want)
	}
	clock.Advance(time.Second)
	if r, want := allowT(t, b, "acct"), ok(5, 0, 5*time.Second); r != want {
		t.Fatalf("replica b after refill: got %+v, want %+v", r, want)
	}
	// a last saw TAT+5s and now allows itself to ask Redis, which says no
	// because b took the refilled token.
	if r, want := allowT(t, a, "acct"), rejected(5, 5*time.Second, time.Second); r != want {
		t.Fatalf("replica a after b's request: got %+v, want %+v", r, want)
	}
}

type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// A flood from a key whose bucket is known to be empty must not reach Redis.
func TestRedisRejectsFloodLocally(t *testing.T) {
	c, prefix := testRedis(t)
	hook := &countHook{}
	c.AddHook(hook)
	clock := newFakeClock()
	l := mustRedis(t, c, prefix, launchQuota, WithClock(clock.Now))
	allowT(t, l, "acct")
	before := hook.n.Load()
	for i := 0; i < 1000; i++ {
		clock.Advance(10 * time.Millisecond)
		if r := allowT(t, l, "acct"); r.Allowed {
			t.Fatalf("request %d allowed", i)
		}
	}
	if n := hook.n.Load() - before; n != 0 {
		t.Fatalf("flood of rejections made %d Redis commands, want 0", n)
	}
	clock.Advance(2 * time.Second) // 12 s after the first request
	if r := allowT(t, l, "acct"); !r.Allowed {
		t.Fatalf("not allowed after the refill interval: %+v", r)
	}
	if hook.n.Load() == before {
		t.Fatal("allowed request did not consult Redis")
	}
}

// With the Redis server clock (no WithClock), as in production. Waits for
// real time once, ~100 ms, up to a computed deadline.
func TestRedisServerClock(t *testing.T) {
	c, prefix := testRedis(t)
	l := mustRedis(t, c, prefix, Quota{Rate: 100 * time.Millisecond, Burst: 2})
	for i := 0; i < 2; i++ {
		if r := allowT(t, l, "acct"); !r.Allowed {
			t.Fatalf("request %d rejected: %+v", i, r)
		}
	}
	if ttl := c.PTTL(context.Background(), prefix+"acct").Val(); ttl <= 0 {
		t.Errorf("key has no TTL (PTTL %v)", ttl)
	}
	start := time.Now()
	r := allowT(t, l, "acct")
	if r.Allowed || r.RetryAfter <= 0 || r.RetryAfter > 100*time.Millisecond ||
		r.ResetAfter <= 100*time.Millisecond || r.ResetAfter > 200*time.Millisecond {
		t.Fatalf("third request: %+v; want rejected, RetryAfter in (0,100ms], ResetAfter in (100ms,200ms]", r)
	}
	// Allowed by start+RetryAfter on the Redis clock; one second of slack
	// for scheduling and clock granularity, never an open-ended wait.
	testserver.Eventually(t, time.Until(start.Add(r.RetryAfter+time.Second)), func() bool {
		return allowT(t, l, "acct").Allowed
	}, fmt.Sprintf("the key allowed again after RetryAfter %s", r.RetryAfter))
}

// Errors reach the caller (which picks fail-open or fail-closed).
func TestRedisUnreachable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testserver.RefusedAddress(t), MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	defer c.Close()
	l, err := NewRedis(c, "x:", apiQuota)
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Allow(context.Background(), "acct")
	if err == nil {
		t.Fatalf("Allow succeeded without Redis: %+v", r)
	}
	if r != (Result{}) {
		t.Errorf("Result on error = %+v, want zero", r)
	}
}

func TestNewRedisRejectsBadConfig(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testserver.RefusedAddress(t)})
	defer c.Close()
	if _, err := NewRedis(nil, "x:", apiQuota); err == nil {
		t.Error("nil client accepted")
	}
	if _, err := NewRedis(c, "", apiQuota); err == nil {
		t.Error("empty prefix accepted")
	}
	if _, err := NewRedis(c, "x:", Quota{Rate: time.Second}); err == nil {
		t.Error("zero burst accepted")
	}
}
