package models

import (
	"fmt"
	"strings"
	"testing"
)

// The cache is bounded by the bytes it holds, not by its count of pages:
// a ticket page may be 1 MiB.
func TestPageCacheBoundedByBytes(t *testing.T) {
	c := newPageCache(4096)
	for i := range 200 {
		c.put(pageKey{account: fmt.Sprint(i)}, &cachedPage{version: 1, body: make([]byte, 100)})
		held := 0
		for k, e := range c.entries {
			held += k.cost(e.body)
		}
		if held != c.bytes || c.bytes > 4096 {
			t.Fatalf("after %d puts: counts %d bytes, holds %d, bound 4096", i+1, c.bytes, held)
		}
	}
	c.put(pageKey{account: "huge"}, &cachedPage{version: 1, body: []byte(strings.Repeat("x", 2000))})
	if _, ok := c.entries[pageKey{account: "huge"}]; ok {
		t.Error("a page of half the bound was kept")
	}
	key := pageKey{account: "a"}
	c.put(key, &cachedPage{version: 5, body: []byte("new")})
	c.put(key, &cachedPage{version: 4, body: []byte("old")})
	if got := string(c.entries[key].body); got != "new" {
		t.Errorf("an older version replaced a newer one: %q", got)
	}
}
