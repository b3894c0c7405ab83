package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestMemoryPeek(t *testing.T) {
	runPeek(t, func(t *testing.T, q Quota, c *fakeClock) Limiter {
		l, err := NewMemory(q, WithClock(c.Now))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

func TestRedisPeek(t *testing.T) {
	c, prefix := testRedis(t)
	runPeek(t, func(t *testing.T, q Quota, clock *fakeClock) Limiter {
		l, err := NewRedis(c, prefix, q, WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}

// Peek reports the bucket as Allow leaves it and takes nothing from it:
// full, then spent by Allow, then empty with the wait for the next
// request, however often it is asked.
func runPeek(t *testing.T, mk func(t *testing.T, q Quota, c *fakeClock) Limiter) {
	ctx := context.Background()
	clock := newFakeClock()
	l := mk(t, Quota{Rate: time.Second, Burst: 3}, clock)
	peek := func(want Result) {
		t.Helper()
		for range 3 {
			got, err := l.Peek(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("peek:\n got  %+v\n want %+v", got, want)
			}
		}
	}
	peek(Result{Allowed: true, Limit: 3, Remaining: 3})
	for range 3 {
		if res, err := l.Allow(ctx, "k"); err != nil || !res.Allowed {
			t.Fatalf("allow within the burst: %+v, %v", res, err)
		}
	}
	peek(Result{Allowed: false, Limit: 3, Remaining: 0, ResetAfter: 3 * time.Second, RetryAfter: time.Second})
	clock.Advance(time.Second)
	peek(Result{Allowed: true, Limit: 3, Remaining: 1, ResetAfter: 2 * time.Second})
}
