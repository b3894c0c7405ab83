package ratelimit

import (
	"context"
	"time"
)

// NewMemory returns a Limiter whose state lives in this process only: right
// for a single replica and for tests. Options: WithClock, WithMaxKeys.
func NewMemory(q Quota, opts ...Option) (Limiter, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return newGCRA(&memStore{t: newTable(o.maxKeys, 0), now: o.now}, q)
}

// memStore implements throttled.GCRAStoreCtx over a sharded table. Values are
// TATs in Unix nanoseconds, so an entry expires exactly when its TAT passes
// (the GCRA ttl is TAT - now); TTLs therefore need no storage of their own.
type memStore struct {
	t   *table
	now func() time.Time
}

func (m *memStore) GetWithTime(_ context.Context, key string) (int64, time.Time, error) {
	now := m.now()
	if v, ok := m.t.get(key); ok {
		return v.Load(), now, nil
	}
	return -1, now, nil
}

func (m *memStore) SetIfNotExistsWithTTL(_ context.Context, key string, value int64, _ time.Duration) (bool, error) {
	return m.t.insert(key, value, m.now().UnixNano()), nil
}

// CompareAndSwapWithTTL may race with eviction of key; the swap then lands
// in a cell no longer in the table, which at worst forgets one request of a
// key that eviction was resetting anyway.
func (m *memStore) CompareAndSwapWithTTL(_ context.Context, key string, old, new int64, _ time.Duration) (bool, error) {
	if v, ok := m.t.get(key); ok {
		return v.CompareAndSwap(old, new), nil
	}
	return false, nil
}
