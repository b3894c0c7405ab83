package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/throttled/throttled/v2/store/storetest"
)

func TestMemoryScenarios(t *testing.T) {
	runScenarios(t, func(t *testing.T, q Quota, c *fakeClock) Limiter {
		l, err := NewMemory(q, WithClock(c.Now))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

func TestMemoryStoreConformance(t *testing.T) {
	storetest.TestGCRAStoreCtx(t, &memStore{t: newTable(DefaultMaxKeys, 0), now: time.Now})
}

func TestNewMemoryRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		q    Quota
		opts []Option
	}{
		{Quota{Rate: 0, Burst: 1}, nil},
		{Quota{Rate: -time.Second, Burst: 1}, nil},
		{Quota{Rate: time.Second, Burst: 0}, nil},
		{Quota{Rate: time.Hour, Burst: 1 << 40}, nil}, // Rate*Burst overflows
		{apiQuota, []Option{WithMaxKeys(0)}},
		{apiQuota, []Option{WithClock(nil)}},
	} {
		if _, err := NewMemory(tc.q, tc.opts...); err == nil {
			t.Errorf("NewMemory(%+v, %d opts) succeeded, want error", tc.q, len(tc.opts))
		}
	}
}

// With a full table, expired keys must go before live ones, and among live
// ones the key nearest a full bucket.
func TestMemoryMaxKeysEviction(t *testing.T) {
	clock := newFakeClock()
	l, err := NewMemory(launchQuota, WithClock(clock.Now), WithMaxKeys(2))
	if err != nil {
		t.Fatal(err)
	}
	allow := func(key string, want bool) {
		t.Helper()
		r, err := l.Allow(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed != want {
			t.Fatalf("key %s: Allowed=%v, want %v", key, r.Allowed, want)
		}
	}
	allow("a", true) // TAT +12s
	clock.Advance(10 * time.Second)
	allow("b", true) // TAT +22s
	clock.Advance(3 * time.Second)
	allow("c", true) // a expired: evicted for free; TAT +25s
	allow("b", false)
	allow("d", true) // b (TAT +22s) is nearest a full bucket: evicted
	allow("c", false)
	allow("b", true) // forgotten, so its burst came back early
}

// Concurrent requests on one key must never let more than the burst through.
func TestMemoryConcurrentBurst(t *testing.T) {
	clock := newFakeClock()
	const burst = 50
	l, err := NewMemory(Quota{Rate: time.Hour, Burst: burst}, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				r, err := l.Allow(context.Background(), "hot")
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != burst {
		t.Fatalf("allowed %d requests, want exactly %d", got, burst)
	}
}

// A key string may alias a buffer the caller reuses (fasthttp does); the
// table must have copied it.
func TestMemoryCopiesKeys(t *testing.T) {
	clock := newFakeClock()
	l, err := NewMemory(launchQuota, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte("acct-1")
	key := unsafeString(buf)
	if r, _ := l.Allow(context.Background(), key); !r.Allowed {
		t.Fatal("first request rejected")
	}
	copy(buf, "acct-2")
	if r, _ := l.Allow(context.Background(), "acct-1"); r.Allowed {
		t.Fatal("acct-1 allowed twice: stored key changed with the caller's buffer")
	}
	if r, _ := l.Allow(context.Background(), fmt.Sprint("acct-2")); !r.Allowed {
		t.Fatal("acct-2 rejected: stored key changed with the caller's buffer")
	}
}
