package ratelimit

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Budget is a quota spent several units at a time, such as the bytes of
// uploads counted in MiB: Burst units at once, then one per Rate. Spend
// counts n units against key, all or (when fewer are left) none; a
// refusal's RetryAfter is when n units will be there.
type Budget interface {
	Spend(ctx context.Context, key string, n int) (Result, error)
}

// NewMemoryBudget returns a Budget whose state lives in this process.
func NewMemoryBudget(q Quota, opts ...Option) (Budget, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newGCRA(&memStore{t: newTable(o.maxKeys, 0), now: o.now}, q)
}

// NewRedisBudget returns a Budget shared through Redis by every replica,
// under prefix. Unlike NewRedis it keeps no local cache of refusals: a
// refusal of n units says nothing about a later, smaller spend.
func NewRedisBudget(client redis.UniversalClient, prefix string, q Quota, opts ...Option) (Budget, error) {
	g, _, err := newRedisGCRA(client, prefix, q, opts)
	if err != nil {
		return nil, err
	}
	return g, nil
}
