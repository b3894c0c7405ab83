package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/throttled/throttled/v2"
)

// Result is the outcome of one Allow call; the package comment defines the
// fields precisely.
type Result struct {
	Allowed    bool
	Limit      int           // burst size of the quota
	Remaining  int           // further requests allowed right now, after this one
	ResetAfter time.Duration // until the bucket is full again
	RetryAfter time.Duration // until the next request is allowed; 0 if Allowed
}

// Limiter counts one request against key and reports whether it may proceed.
// A non-nil error means the store could not be consulted (e.g. Redis down or
// ctx done); the Result is then zero and the caller decides whether to fail
// open or closed.
type Limiter interface {
	Allow(ctx context.Context, key string) (Result, error)
	// Peek reports key's bucket without counting a request: Remaining is
	// what may be made right now, Allowed whether that is at least one.
	Peek(ctx context.Context, key string) (Result, error)
}

// DefaultMaxKeys bounds in-process state per limiter. At roughly 100 bytes a
// key it caps memory near 10 MB even when keys are attacker-chosen (client
// addresses of failed logins).
const DefaultMaxKeys = 100_000

type options struct {
	now      func() time.Time
	clockSet bool // WithClock given: NewRedis must then not use Redis TIME
	maxKeys  int
}

// Option configures NewMemory and NewRedis.
type Option func(*options)

// WithClock replaces time.Now so tests can move time without sleeping. For
// NewRedis it also replaces the Redis server clock (TIME); that is only
// sound when every limiter sharing the Redis keys uses the same clock, which
// is why production code should not pass it.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now, o.clockSet = now, true }
}

// WithMaxKeys bounds how many keys a limiter keeps in process memory (the
// whole state for NewMemory, the local rejection cache for NewRedis). When
// full, expired keys are dropped first; failing that, the key closest to a
// full bucket, which at worst hands that key its burst early.
func WithMaxKeys(n int) Option {
	return func(o *options) { o.maxKeys = n }
}

func buildOptions(opts []Option) (options, error) {
	o := options{now: time.Now, maxKeys: DefaultMaxKeys}
	for _, opt := range opts {
		opt(&o)
	}
	if o.now == nil {
		return o, fmt.Errorf("ratelimit: WithClock(nil)")
	}
	if o.maxKeys < 1 {
		return o, fmt.Errorf("ratelimit: WithMaxKeys(%d): must be at least 1", o.maxKeys)
	}
	return o, nil
}

// gcra adapts throttled's GCRA limiter to Limiter; both constructors use it
// so memory and Redis share exactly one algorithm.
type gcra struct {
	rl *throttled.GCRARateLimiterCtx
}

func newGCRA(st throttled.GCRAStoreCtx, q Quota) (*gcra, error) {
	if err := q.validate(); err != nil {
		return nil, err
	}
	// throttled counts burst as requests beyond the first.
	rl, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{
		MaxRate:  throttled.PerDuration(1, q.Rate),
		MaxBurst: q.Burst - 1,
	})
	if err != nil {
		return nil, err
	}
	// A failed compare-and-swap means a competing request was just counted,
	// and once the bucket is empty competitors are rejected without writing.
	// So a request can lose at most about Burst races; throttled's default
	// of 10 would turn a burst-sized stampede on one key into store errors.
	rl.SetMaxCASAttemptsLimit(q.Burst + 10)
	return &gcra{rl: rl}, nil
}

func (g *gcra) Allow(ctx context.Context, key string) (Result, error) {
	return g.Spend(ctx, key, 1)
}

// Peek asks throttled for a quantity of 0, which it documents as reading
// the bucket without taking from it.
func (g *gcra) Peek(ctx context.Context, key string) (Result, error) {
	res, err := g.Spend(ctx, key, 0)
	res.Allowed = err == nil && res.RetryAfter == 0
	return res, err
}

// Spend counts n units against key at once: all of them or, when the
// bucket holds fewer, none.
func (g *gcra) Spend(ctx context.Context, key string, n int) (Result, error) {
	limited, r, err := g.rl.RateLimitCtx(ctx, key, n)
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: %w", err)
	}
	res := Result{
		Allowed:    !limited,
		Limit:      r.Limit,
		Remaining:  r.Remaining,
		ResetAfter: r.ResetAfter,
	}
	if r.RetryAfter > 0 { // throttled reports -1 when allowed
		res.RetryAfter = r.RetryAfter
	}
	return res, nil
}
