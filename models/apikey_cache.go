package models

import (
	"sync"
	"time"
)

const (
	// keyCacheTTL bounds how long another replica's revocation or account
	// change can go unnoticed here.
	keyCacheTTL = 10 * time.Second
	// touchInterval bounds how often last_used_at is written per key.
	touchInterval = time.Minute
)

type principal struct {
	hash          string
	actor         Actor
	accountActive bool
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
}

func newKeyCache(now Clock) *keyCache {
	return &keyCache{now: now, entries: map[string]*cachedPrincipal{}}
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

func (c *keyCache) put(hash string, p principal) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
