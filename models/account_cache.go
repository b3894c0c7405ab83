package models

import (
	"context"
	"sync"
)

// maxCachedRows bounds what an accountCache holds, counted in list rows
// (a filesystem row is about 300 bytes), so that memory stays bounded
// however many accounts read their lists.
const maxCachedRows = 32 << 10

// weight is what an entry counts against maxCachedRows: empty lists count
// too, or accounts without objects could fill memory with entries.
func weight[T any](list []T) int { return len(list) + 1 }

// accountCache keeps one list per account together with the account
// version (AccountVersion) read before the list was. A cached list is
// served only while the account's version is still the one it was read
// at, so it is never stale, in this process or across replicas; what it
// saves is the list's query, not the version's.
type accountCache[T any] struct {
	mu      sync.RWMutex
	entries map[string]cachedList[T]
	rows    int
}

type cachedList[T any] struct {
	version int64
	list    []T
}

func newAccountCache[T any]() *accountCache[T] {
	return &accountCache[T]{entries: map[string]cachedList[T]{}}
}

// list returns the account's list: a copy of the cached one when the
// account's version has not changed since it was read, else load's answer,
// which is cached. Callers may modify the slice they get.
func (c *accountCache[T]) list(ctx context.Context, s *Store, accountID string, load func() ([]T, error)) ([]T, error) {
	// The version is read before the list: a change committed in between
	// makes the cached entry older than the list it holds, never newer, so
	// the next read misses instead of serving a stale list.
	version, err := s.accountVersion(ctx, accountID)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	e, ok := c.entries[accountID]
	c.mu.RUnlock()
	if ok && e.version == version {
		return append(make([]T, 0, len(e.list)), e.list...), nil
	}
	list, err := load()
	if err != nil {
		return nil, err
	}
	c.put(accountID, cachedList[T]{version: version, list: append([]T(nil), list...)})
	return list, nil
}

func (c *accountCache[T]) put(accountID string, e cachedList[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[accountID]; ok {
		c.rows -= weight(old.list)
		delete(c.entries, accountID)
	}
	w := weight(e.list)
	if w > maxCachedRows {
		return
	}
	// Go randomises map iteration, so this evicts arbitrary entries: O(1)
	// per put, and no bookkeeping on the read path.
	for k, old := range c.entries {
		if c.rows+w <= maxCachedRows {
			break
		}
		c.rows -= weight(old.list)
		delete(c.entries, k)
	}
	c.entries[accountID] = e
	c.rows += w
}
