package models

import (
	"sync"
	"time"
)

const (
	// keyCacheTTL bounds how long a cached principal is trusted without a
	// fresh read. Revocations and account changes made anywhere reach this
	// cache sooner, through the credentials version (syncKeyCache).
	keyCacheTTL = 10 * time.Second
	// touchInterval bounds how often last_used_at is written per key.
	touchInterval = time.Minute
)

type principal struct {
	hash          string
	actor         Actor
	accountActive bool
	expiresAt     *time.Time
}

type cachedPrincipal struct {
	principal
	loaded    time.Time
	touchedAt time.Time
}

// keyCache maps key hashes to principals so that authentication of a
// known key needs no database round trip.
type keyCache struct {
	now     Clock
	mu      sync.RWMutex
	entries map[string]*cachedPrincipal
	// version is the credentials version the entries were loaded under,
	// and checkedAt when it was last read; checking admits one reader.
	version   string
	checkedAt time.Time
	checking  chan struct{}
}

func newKeyCache(now Clock) *keyCache {
	return &keyCache{now: now, entries: map[string]*cachedPrincipal{}, checking: make(chan struct{}, 1)}
}

// versionDue reports whether the credentials version should be read again.
func (c *keyCache) versionDue() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.checkedAt.IsZero() || c.now().Sub(c.checkedAt) >= credentialsCheckInterval
}

// observeVersion records the credentials version just read, forgetting
// every entry when it differs from the one they were loaded under.
func (c *keyCache) observeVersion(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		clear(c.entries)
		c.version = v
	}
	c.checkedAt = c.now()
}

func (c *keyCache) get(hash string) (principal, bool) {
	c.mu.RLock()
	e, ok := c.entries[hash]
	c.mu.RUnlock()
	if !ok || c.now().Sub(e.loaded) > keyCacheTTL {
		return principal{}, false
	}
	return e.principal, true
}

// currentVersion is the credentials version the entries stand for; read
// it before loading a principal and pass it to put.
func (c *keyCache) currentVersion() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version
}

// put caches p, loaded from a row read after the cache stood for version
// loadedUnder. If the version changed meanwhile (a revocation, role change
// or removal committed, and another request saw it), the row may predate
// the change and p is not cached: caching it under the new version would
// keep it past the change until keyCacheTTL, since no later check would
// see a difference. The caller still uses p for this one request, which
// is no later than the read.
func (c *keyCache) put(hash string, p principal, loadedUnder string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != loadedUnder {
		return
	}
	old := c.entries[hash]
	e := &cachedPrincipal{principal: p, loaded: c.now()}
	if old != nil {
		e.touchedAt = old.touchedAt
	}
	c.entries[hash] = e
}

// shouldTouch reports whether last_used_at is due for a write, and if so
// marks it written so concurrent requests do not write it too.
func (c *keyCache) shouldTouch(hash string) bool {
	now := c.now()
	c.mu.RLock()
	e, ok := c.entries[hash]
	due := ok && now.Sub(e.touchedAt) >= touchInterval
	c.mu.RUnlock()
	if !due {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(e.touchedAt) < touchInterval {
		return false
	}
	e.touchedAt = now
	return true
}

func (c *keyCache) forgetKey(hash string) {
	c.mu.Lock()
	delete(c.entries, hash)
	c.mu.Unlock()
}

func (c *keyCache) forgetAccount(accountID string) {
	c.mu.Lock()
	for h, e := range c.entries {
		if e.actor.AccountID == accountID {
			delete(c.entries, h)
		}
	}
	c.mu.Unlock()
}
