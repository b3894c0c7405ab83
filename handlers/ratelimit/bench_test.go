package ratelimit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks use the real clock: time.Now is part of every Allow in
// production, so leaving it out would flatter the numbers.

// wideOpen never rejects within a benchmark's run: a 1ns rate with a burst
// of ~2^40 lasts about 18 minutes of hammering.
var wideOpen = Quota{Rate: time.Nanosecond, Burst: 1 << 40}

func newBenchMemory(b *testing.B, q Quota, opts ...Option) Limiter {
	l, err := NewMemory(q, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func benchAllow(b *testing.B, l Limiter, key string, want bool) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r, err := l.Allow(ctx, key); err != nil || r.Allowed != want {
			b.Fatalf("Allowed=%v err=%v, want Allowed=%v", r.Allowed, err, want)
		}
	}
}

func BenchmarkMemoryAllow_allowed(b *testing.B) {
	benchAllow(b, newBenchMemory(b, wideOpen), "acct", true)
}

// The flood case: one key far over its limit.
func BenchmarkMemoryAllow_rejected(b *testing.B) {
	l := newBenchMemory(b, launchQuota)
	l.Allow(context.Background(), "acct")
	benchAllow(b, l, "acct", false)
}

// Many accounts at once, each allowed: one key per goroutine.
func BenchmarkMemoryAllow_allowedParallel(b *testing.B) {
	l := newBenchMemory(b, wideOpen)
	var g atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key, ctx := "acct-"+strconv.FormatInt(g.Add(1), 10), context.Background()
		for pb.Next() {
			if r, err := l.Allow(ctx, key); err != nil || !r.Allowed {
				b.Fatalf("rejected or failed: %+v %v", r, err)
			}
		}
	})
}

// All goroutines flood the same exhausted key: worst case for contention.
func BenchmarkMemoryAllow_rejectedParallel(b *testing.B) {
	l := newBenchMemory(b, launchQuota)
	l.Allow(context.Background(), "acct")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if r, err := l.Allow(ctx, "acct"); err != nil || r.Allowed {
				b.Fatalf("allowed or failed: %+v %v", r, err)
			}
		}
	})
}

// Failed logins from ever new client addresses: every request is a new key
// in a full table, so each one pays for an insert and an eviction.
func BenchmarkMemoryAllow_newKeysParallel(b *testing.B) {
	const maxKeys = 10_000
	keys := make([]string, 1<<20)
	for i := range keys {
		keys[i] = "198.51." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&255)
	}
	l := newBenchMemory(b, apiQuota, WithMaxKeys(maxKeys))
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := l.Allow(ctx, keys[next.Add(1)&(1<<20-1)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The Redis limiter, for scale: an allowed request costs two round trips,
// a rejection already seen by this replica none.
func BenchmarkRedisAllow_allowed(b *testing.B) {
	c, prefix := testRedis(b)
	l, err := NewRedis(c, prefix, wideOpen)
	if err != nil {
		b.Fatal(err)
	}
	benchAllow(b, l, "acct", true)
}

func BenchmarkRedisAllow_rejected(b *testing.B) {
	c, prefix := testRedis(b)
	l, err := NewRedis(c, prefix, launchQuota)
	if err != nil {
		b.Fatal(err)
	}
	l.Allow(context.Background(), "acct")
	benchAllow(b, l, "acct", false)
}
