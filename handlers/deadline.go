package handlers

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// DefaultRequestTimeout bounds a request when Config leaves it unset.
const DefaultRequestTimeout = 30 * time.Second

// deadline gives every request a context that ends after d, or when
// stopping ends (the server's drain period is over), whichever is first.
// Domain operations take c.UserContext(), so the deadline reaches the
// database: a database that does not answer costs a request d, not as
// long as it is gone. fiber's middleware/timeout is not used: it wraps
// handlers one by one and answers 408, where a database too slow is 503.
func deadline(stopping context.Context, d time.Duration) fiber.Handler {
	live := &liveRequests{stopping: stopping, requests: map[*requestContext]struct{}{}}
	context.AfterFunc(stopping, live.stop)
	return func(c *fiber.Ctx) error {
		// Derived from the request's context, which carries the request
		// id for logs; stopping cancels it too.
		parent, at := c.UserContext(), time.Now().Add(d)
		var err error
		if parent.Done() != nil {
			// A parent that can end itself is rare (tests): the
			// standard contexts follow it.
			ctx, cancel := context.WithDeadline(parent, at)
			unhook := context.AfterFunc(stopping, cancel)
			c.SetUserContext(ctx)
			err = c.Next()
			unhook()
			cancel()
		} else {
			ctx := &requestContext{Context: parent, deadline: at, live: live}
			c.SetUserContext(ctx)
			err = c.Next()
			ctx.cancel()
		}
		// The error page is rendered after this returns, and templ
		// refuses to render into an ended context. What later middleware
		// added to the context (the request id for logs) is kept.
		c.SetUserContext(context.WithoutCancel(c.UserContext()))
		return err
	}
}

// liveRequests are the requests whose contexts someone waits on, which
// stopping must end. One hook on stopping serves them all: a hook per
// request (context.AfterFunc) cost two allocations and a place in
// stopping's own map.
type liveRequests struct {
	stopping context.Context
	mu       sync.Mutex
	stopped  bool
	requests map[*requestContext]struct{}
}

// add counts c among the live requests, or reports false when stopping
// has ended already.
func (l *liveRequests) add(c *requestContext) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.requests[c] = struct{}{}
	return true
}

func (l *liveRequests) remove(c *requestContext) {
	l.mu.Lock()
	delete(l.requests, c)
	l.mu.Unlock()
}

// stop ends every live request, and makes every later one end as soon
// as it is waited on.
func (l *liveRequests) stop() {
	l.mu.Lock()
	l.stopped = true
	requests := make([]*requestContext, 0, len(l.requests))
	for c := range l.requests {
		requests = append(requests, c)
	}
	l.mu.Unlock()
	for _, c := range requests {
		c.cancel()
	}
}

// requestContext is context.WithDeadline(parent, deadline) that stopping
// cancels too, made cheap for the request that never waits on it: a
// runtime timer and a hook on stopping cost a request about a microsecond
// and seven allocations (BenchmarkDeadline), and most requests end
// without asking for Done. So the timer is set, and the request counted
// among the live ones, only when Done is first asked for (or a context is
// derived from it); until then Err compares the clock. The embedded
// parent answers Value; it never ends.
type requestContext struct {
	context.Context
	deadline time.Time
	live     *liveRequests

	mu     sync.Mutex
	err    error         // set when the context ends
	done   chan struct{} // made when first asked for; closed when it ends
	timer  *requestTimer // armed with done, until the context ends
	listed bool          // among live's requests
	afters []*requestAfter
}

// requestAfter is a function to run when the context ends (AfterFunc).
type requestAfter struct {
	f       func()
	removed bool
}

// closedChan is the Done of a context that ended before it was asked for.
var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

func (c *requestContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *requestContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armLocked()
	return c.done
}

func (c *requestContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		if err := c.endedLocked(); err != nil {
			c.endLocked(err)
		}
	}
	return c.err
}

// AfterFunc runs f in its own goroutine once the context ends, unless the
// returned stop is called first. context.WithCancel, WithTimeout and
// AfterFunc use it to follow this context without a goroutine of their own.
func (c *requestContext) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armLocked()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	a := &requestAfter{f: f}
	c.afters = append(c.afters, a)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if a.removed || c.err != nil {
			return false
		}
		a.removed = true
		return true
	}
}

// endedLocked is why the context has ended by now without a timer or
// hook having said so: its deadline passed or stopping ended.
func (c *requestContext) endedLocked() error {
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	if c.live.stopping.Err() != nil {
		return context.Canceled
	}
	return nil
}

// armLocked makes Done, and the timer and hook that close it.
func (c *requestContext) armLocked() {
	if c.done != nil {
		return
	}
	if c.err == nil {
		if err := c.endedLocked(); err != nil {
			c.endLocked(err)
		}
	}
	if c.err != nil {
		c.done = closedChan
		return
	}
	if !c.live.add(c) {
		c.endLocked(context.Canceled)
		c.done = closedChan
		return
	}
	c.listed = true
	c.done = make(chan struct{})
	c.timer = startRequestTimer(c)
}

// cancel ends the context as the request's end or stopping does.
func (c *requestContext) cancel() { c.end(context.Canceled) }

func (c *requestContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

// endLocked ends the context with err, unless it has ended already.
func (c *requestContext) endLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.stop()
		c.timer = nil
	}
	if c.listed {
		c.live.remove(c)
	}
	for _, a := range c.afters {
		if !a.removed {
			go a.f()
		}
	}
	c.afters = nil
}

// requestTimer ends a requestContext at its deadline. Timers are reused:
// making one (time.AfterFunc) was the largest cost of a request that
// waits on its context.
type requestTimer struct {
	t     *time.Timer
	owner atomic.Pointer[requestContext]
}

var requestTimers sync.Pool

// startRequestTimer arms a timer that ends c at its deadline.
func startRequestTimer(c *requestContext) *requestTimer {
	d := time.Until(c.deadline)
	rt, _ := requestTimers.Get().(*requestTimer)
	if rt == nil {
		rt = &requestTimer{}
		rt.owner.Store(c)
		rt.t = time.AfterFunc(d, rt.fire)
		return rt
	}
	rt.owner.Store(c)
	rt.t.Reset(d)
	return rt
}

func (rt *requestTimer) fire() {
	if c := rt.owner.Load(); c != nil {
		c.end(context.DeadlineExceeded)
	}
}

// stop disarms the timer. One stopped before it fired is reused; one
// that fired, or is firing, is left to the collector.
func (rt *requestTimer) stop() {
	if rt.t.Stop() {
		rt.owner.Store(nil)
		requestTimers.Put(rt)
	}
}
