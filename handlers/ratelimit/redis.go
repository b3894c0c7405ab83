package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewRedis returns a Limiter whose state is shared through Redis, so all
// replicas enforce one quota per key. prefix namespaces this limiter's keys
// (e.g. "cloudplane:rl:api:") and must differ between quotas. WithMaxKeys
// bounds the local rejection cache; WithClock is for tests only.
//
// Cost: a request over its limit whose rejection this replica has already
// seen is answered from process memory (no Redis round trip) until it could
// succeed again. That is sound because a key's TAT in Redis only ever moves
// forward, so a TAT we saw is a lower bound. The one exception is a key
// deleted by hand in Redis: this replica keeps rejecting it for at most one
// refill interval. Otherwise a rejection costs one round trip and an allowed
// request two (read, then compare-and-swap).
func NewRedis(client redis.UniversalClient, prefix string, q Quota, opts ...Option) (Limiter, error) {
	g, o, err := newRedisGCRA(client, prefix, q, opts)
	if err != nil {
		return nil, err
	}
	slack := int64(q.Rate) * int64(q.Burst-1)
	return &redisLimiter{
		g:     g,
		seen:  newTable(o.maxKeys, slack),
		slack: slack,
		limit: q.Burst,
		now:   o.now,
		start: o.now(),
	}, nil
}

// newRedisGCRA is the GCRA over Redis that NewRedis and NewRedisBudget
// share, with the options it was given.
func newRedisGCRA(client redis.UniversalClient, prefix string, q Quota, opts []Option) (*gcra, options, error) {
	if client == nil {
		return nil, options{}, errors.New("ratelimit: nil Redis client")
	}
	if prefix == "" {
		// Unprefixed keys could overwrite unrelated application data.
		return nil, options{}, errors.New("ratelimit: empty Redis key prefix")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, options{}, err
	}
	st := &redisStore{c: client, prefix: prefix}
	if o.clockSet {
		st.now = o.now
	}
	g, err := newGCRA(st, q)
	return g, o, err
}

type redisLimiter struct {
	g *gcra
	// seen holds, per key whose bucket we saw empty, a lower bound on its
	// TAT as nanoseconds since start on the local clock (monotonic unless a
	// test clock is injected), so wall-clock steps cannot skew it.
	seen  *table
	slack int64 // Rate*(Burst-1): a request is allowed once now >= TAT-slack
	limit int
	now   func() time.Time
	start time.Time
}

func (l *redisLimiter) Allow(ctx context.Context, key string) (Result, error) {
	now := int64(l.now().Sub(l.start))
	if v, ok := l.seen.get(key); ok {
		if tat := v.Load(); now < tat-l.slack {
			// Exactly what throttled would compute for this TAT.
			return Result{
				Limit:      l.limit,
				RetryAfter: time.Duration(tat - l.slack - now),
				ResetAfter: time.Duration(tat - now),
			}, nil
		}
	}
	res, err := l.g.Allow(ctx, key)
	if err == nil && res.Remaining == 0 {
		// now was read before Redis computed its answer, so now+ResetAfter
		// cannot overshoot the real TAT.
		l.seen.raise(key, now+int64(res.ResetAfter), now)
	}
	return res, err
}

// Peek reads the bucket from Redis: a rejection cached here says the
// bucket was empty then, not how full it is now.
func (l *redisLimiter) Peek(ctx context.Context, key string) (Result, error) {
	return l.g.Peek(ctx, key)
}

// redisStore implements throttled.GCRAStoreCtx over go-redis v9. It is used
// instead of throttled's goredisstore.v9 because that one truncates TTLs to
// whole seconds (a key can expire up to 1 s before its TAT passes, handing
// out a free token) and sets a new key's TTL non-atomically (SETNX, then
// EXPIRE; a crash in between leaves a key without TTL).
type redisStore struct {
	c      redis.UniversalClient
	prefix string
	now    func() time.Time // nil: the Redis server clock
}

// getScript reads the TAT with the server time in one round trip. Taking
// TIME inside the script (not as a separate pipelined command) makes it come
// from the node that owns the key, which keeps one clock per key on a
// cluster. Read-only, so TIME's non-determinism is harmless for replication.
var getScript = redis.NewScript(`
local t = redis.call('TIME')
return {t[1], t[2], redis.call('GET', KEYS[1]) or '-1'}
`)

// casScript swaps only if the stored value is old; a missing key compares
// unequal (GET gives false), as GCRAStoreCtx requires "false, no error".
var casScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`)

func (s *redisStore) GetWithTime(ctx context.Context, key string) (int64, time.Time, error) {
	vals, err := getScript.Run(ctx, s.c, []string{s.prefix + key}).Slice()
	if err != nil {
		return 0, time.Time{}, err
	}
	if len(vals) != 3 {
		return 0, time.Time{}, fmt.Errorf("ratelimit: redis get script returned %d values", len(vals))
	}
	var n [3]int64
	for i, v := range vals {
		str, _ := v.(string)
		if n[i], err = strconv.ParseInt(str, 10, 64); err != nil {
			return 0, time.Time{}, fmt.Errorf("ratelimit: redis get script value %q: %w", v, err)
		}
	}
	now := time.Unix(n[0], n[1]*1e3) // TIME is seconds and microseconds
	if s.now != nil {
		now = s.now()
	}
	return n[2], now, nil
}

func (s *redisStore) SetIfNotExistsWithTTL(ctx context.Context, key string, value int64, ttl time.Duration) (bool, error) {
	return s.c.SetNX(ctx, s.prefix+key, value, redisTTL(ttl)).Result()
}

func (s *redisStore) CompareAndSwapWithTTL(ctx context.Context, key string, old, new int64, ttl time.Duration) (bool, error) {
	n, err := casScript.Run(ctx, s.c, []string{s.prefix + key}, old, new, redisTTL(ttl).Milliseconds()).Int64()
	return n == 1, err
}

// redisTTL rounds up to whole milliseconds (Redis's resolution) and to at
// least one second. Rounding up is always safe: a key that outlives its TAT
// reads the same as a missing one, whereas expiring early gives tokens away.
func redisTTL(ttl time.Duration) time.Duration {
	ttl = (ttl + time.Millisecond - 1).Truncate(time.Millisecond)
	return max(ttl, time.Second)
}
