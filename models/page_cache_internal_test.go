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
		for k, e := range c.entries.entries {
			held += k.cost(e.value.body)
		}
		if held != c.entries.used || held > 4096 {
			t.Fatalf("after %d puts: counts %d bytes, holds %d, bound 4096", i+1, c.entries.used, held)
		}
	}
	c.put(pageKey{account: "huge"}, &cachedPage{version: 1, body: []byte(strings.Repeat("x", 2000))})
	if _, ok := c.entries.get(pageKey{account: "huge"}); ok {
		t.Error("a page of half the bound was kept")
	}
	key := pageKey{account: "a"}
	c.put(key, &cachedPage{version: 5, body: []byte("new")})
	c.put(key, &cachedPage{version: 4, body: []byte("old")})
	if e, _ := c.entries.get(key); string(e.body) != "new" {
		t.Errorf("an older version replaced a newer one: %q", e.body)
	}
}
