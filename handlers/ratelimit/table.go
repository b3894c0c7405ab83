package ratelimit

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"sync/atomic"
)

// table is a bounded, sharded map from key to an int64 timestamp (a GCRA
// "theoretical arrival time"). Sharding keeps unrelated keys from contending
// on one lock, which throttled's memstore does not (one RWMutex, or an LRU
// that takes an exclusive lock even on reads).
//
// A value is "expired" once now >= value - slack: from then on the entry
// carries no information and may be dropped for free.
type table struct {
	seed   maphash.Seed
	mask   uint64
	slack  int64
	shards []shard
}

type shard struct {
	mu  sync.RWMutex
	m   map[string]*atomic.Int64
	cap int
	_   [64 - 40]byte // keep shards on separate cache lines
}

const maxShards = 64

func newTable(maxKeys int, slack int64) *table {
	// Fewer shards for small tables so that a per-shard cap of ceil(max/n)
	// does not overshoot maxKeys by much (and tests can fill it exactly).
	n := maxShards
	for n > 1 && maxKeys/n < 256 {
		n /= 2
	}
	t := &table{seed: maphash.MakeSeed(), mask: uint64(n - 1), slack: slack, shards: make([]shard, n)}
	for i := range t.shards {
		t.shards[i].cap = (maxKeys + n - 1) / n
		t.shards[i].m = make(map[string]*atomic.Int64)
	}
	return t
}

func (t *table) shard(key string) *shard {
	return &t.shards[maphash.String(t.seed, key)&t.mask]
}

// get returns the cell for key; callers use atomics on it without a lock.
func (t *table) get(key string) (*atomic.Int64, bool) {
	s := t.shard(key)
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	return v, ok
}

// insert stores value under key unless key is present, evicting if full.
func (t *table) insert(key string, value, now int64) bool {
	s := t.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok {
		return false
	}
	if len(s.m) >= s.cap {
		s.evict(now, t.slack)
	}
	v := new(atomic.Int64)
	v.Store(value)
	// Clone: callers may pass strings aliasing reused request buffers
	// (fiber/fasthttp); a map key must not change under us.
	s.m[strings.Clone(key)] = v
	return true
}

// raise makes key's value at least value, inserting it if absent.
func (t *table) raise(key string, value, now int64) {
	for {
		v, ok := t.get(key)
		if !ok {
			if t.insert(key, value, now) {
				return
			}
			continue
		}
		old := v.Load()
		if old >= value || v.CompareAndSwap(old, value) {
			return
		}
	}
}

// evict frees at least one slot by sampling a few entries (Go randomises map
// iteration order), as Redis does for its approximate LRU: O(1) per insert
// even when an attacker keeps the table full of live keys. Expired samples
// go for free; otherwise the one nearest expiry goes, which costs least.
func (s *shard) evict(now, slack int64) {
	const samples = 8
	victim, victimAt, freed, n := "", int64(math.MaxInt64), false, 0
	for k, v := range s.m {
		if at := v.Load() - slack; at <= now {
			delete(s.m, k)
			freed = true
		} else if at < victimAt {
			victim, victimAt = k, at
		}
		if n++; n == samples {
			break
		}
	}
	if !freed && victimAt != math.MaxInt64 {
		delete(s.m, victim)
	}
}
