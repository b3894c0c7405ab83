package ratelimit

import (
	"sync/atomic"
	"time"
)

// fakeClock is the injected clock: tests move time explicitly, never sleep.
type fakeClock struct{ ns atomic.Int64 }

// newFakeClock starts at a fixed, realistic date so TATs look like real
// Unix nanoseconds (Redis stores them too).
func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
