package models

import (
	"context"
	"strings"
	"sync"
)

// maxCachedPageBytes bounds what a pageCache holds, in bytes of encoded
// pages (and their keys): a ticket page may be up to TicketListPageBudget,
// so a bound by count would not bound memory.
const maxCachedPageBytes = 4 << 20

// pageEntryOverhead is what an entry costs beside its body and key: the
// map slot and the entry itself.
const pageEntryOverhead = 128

// pageCache keeps encoded pages of listings by account and query, with
// the account's version (AccountVersion) read before the page was. A page
// is served only while the account's version is still the one it was read
// at, so it is never stale, in this process or across replicas; what it
// saves is the page's queries and its encoding, not the version's read.
// Unlike accountCache it holds many pages of an account (one per filter,
// order and page token), bounded together by bytes.
type pageCache struct {
	mu      sync.Mutex
	entries boundedMap[pageKey, *cachedPage] // costs in bytes (pageKey.cost)
}

type pageKey struct {
	account string
	query   string // the listing's filters and page token, canonical
	by      any    // the encoding that made the body
}

type cachedPage struct {
	version int64
	body    []byte
}

func newPageCache(maxBytes int) *pageCache {
	// One page may take a quarter of the cache, so that a huge one cannot
	// empty it.
	return &pageCache{entries: newBoundedMap[pageKey, *cachedPage](maxBytes, maxBytes/4)}
}

func (k pageKey) cost(body []byte) int {
	return len(body) + len(k.account) + len(k.query) + pageEntryOverhead
}

// page returns the encoded page of key at the account's current version:
// from the cache when it holds that version, else from load, whose answer
// it keeps. The bytes are shared: callers must not modify them.
func (c *pageCache) page(ctx context.Context, s *Store, key pageKey, load func() ([]byte, error)) ([]byte, error) {
	// The version is read before the page: a change committed in between
	// makes the cached page older than its version says, never newer, so
	// the next read misses instead of serving a stale page.
	version, err := s.accountVersion(ctx, key.account)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e, ok := c.entries.get(key)
	c.mu.Unlock()
	if ok && e.version == version {
		return e.body, nil
	}
	body, err := load()
	if err != nil {
		return nil, err
	}
	c.put(key, &cachedPage{version: version, body: body})
	return body, nil
}

func (c *pageCache) put(key pageKey, e *cachedPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries.get(key); ok && old.version > e.version {
		return // a slower reader's older page must not replace a newer one
	}
	c.entries.put(key, e, key.cost(e.body))
}

// queryKey joins a listing's parameters into one cache key; \x00 never
// occurs in them (the API's values come from a URL's query).
func queryKey(parts ...string) string { return strings.Join(parts, "\x00") }
