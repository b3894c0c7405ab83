package models

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// maxCachedRows bounds what an accountCache holds, counted in list rows
// (a filesystem row is about 300 bytes, and as much again encoded), so
// that memory stays bounded however many accounts read their lists.
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
	entries boundedMap[string, *cachedList[T]] // costs in rows (weight)
}

// cachedList is one account's list. Its list is never modified; encoded
// is filled on first use (ListEncoding).
type cachedList[T any] struct {
	version int64
	// expires is when the list stops being what a read would answer with
	// no write in between, by the store's clock (an instance's status
	// ending); zero for a list that only writes change.
	expires time.Time
	list    []T
	encoded atomic.Pointer[encodedList]
}

type encodedList struct {
	by   any // the *ListEncoding that made body
	body []byte
}

// ListEncoding is one way of encoding a list, such as the API's JSON body.
// A list is encoded once per version and the result kept in the cache
// beside it, for the reads that serve the encoded form alone.
type ListEncoding[T any] struct {
	encode func(list []T) []byte
}

// NewListEncoding returns an encoding by encode, which must depend on the
// list alone and neither modify nor retain it. Make one per encoding, at
// package level: the cache tells encodings apart by identity.
func NewListEncoding[T any](encode func(list []T) []byte) *ListEncoding[T] {
	return &ListEncoding[T]{encode: encode}
}

func newAccountCache[T any]() *accountCache[T] {
	return &accountCache[T]{entries: newBoundedMap[string, *cachedList[T]](maxCachedRows, maxCachedRows)}
}

// list returns a copy of the account's current list, which callers may
// modify.
func (c *accountCache[T]) list(ctx context.Context, s *Store, accountID string, load func() ([]T, error)) ([]T, error) {
	e, err := c.entry(ctx, s, accountID, lastsUntilWritten(load))
	if err != nil {
		return nil, err
	}
	return append(make([]T, 0, len(e.list)), e.list...), nil
}

// encoded returns the account's current list encoded by enc. The bytes
// are shared with the cache and other callers: they must not be modified.
func (c *accountCache[T]) encoded(ctx context.Context, s *Store, accountID string, load func() ([]T, error), enc *ListEncoding[T]) ([]byte, error) {
	return c.encodedExpiring(ctx, s, accountID, lastsUntilWritten(load), enc)
}

// encodedExpiring is encoded for a list that also changes with the clock:
// load returns the list and when it expires (zero: never), and the cached
// list is read again from then on, whatever the account's version.
func (c *accountCache[T]) encodedExpiring(ctx context.Context, s *Store, accountID string, load func() ([]T, time.Time, error), enc *ListEncoding[T]) ([]byte, error) {
	e, err := c.entry(ctx, s, accountID, load)
	if err != nil {
		return nil, err
	}
	if p := e.encoded.Load(); p != nil && p.by == enc {
		return p.body, nil
	}
	body := enc.encode(e.list)
	e.encoded.Store(&encodedList{by: enc, body: body})
	return body, nil
}

// entry returns the account's cached entry when the account's version has
// not changed since it was read, else a new entry of load's answer.
func (c *accountCache[T]) entry(ctx context.Context, s *Store, accountID string, load func() ([]T, time.Time, error)) (*cachedList[T], error) {
	// The version is read before the list: a change committed in between
	// makes the cached entry older than the list it holds, never newer, so
	// the next read misses instead of serving a stale list.
	version, err := s.accountVersion(ctx, accountID)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	e, ok := c.entries.get(accountID)
	c.mu.RUnlock()
	if ok && e.version == version && (e.expires.IsZero() || s.Now().Before(e.expires)) {
		return e, nil
	}
	list, expires, err := load()
	if err != nil {
		return nil, err
	}
	e = &cachedList[T]{version: version, expires: expires, list: list}
	c.put(accountID, e)
	return e, nil
}

// lastsUntilWritten is load for a list that only writes change.
func lastsUntilWritten[T any](load func() ([]T, error)) func() ([]T, time.Time, error) {
	return func() ([]T, time.Time, error) {
		list, err := load()
		return list, time.Time{}, err
	}
}

func (c *accountCache[T]) put(accountID string, e *cachedList[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.put(accountID, e, weight(e.list))
}
