package models

import (
	"fmt"
	"testing"
)

// The cache holds at most maxCachedRows rows, however many accounts read,
// and its count of rows stays true through replacements and evictions.
func TestAccountCacheIsBounded(t *testing.T) {
	c := newAccountCache[int]()
	ten := make([]int, 10)
	for i := range 3 * maxCachedRows / 11 {
		c.put(fmt.Sprintf("account-%d", i), &cachedList[int]{version: 1, list: ten})
		c.put(fmt.Sprintf("account-%d", i), &cachedList[int]{version: 2, list: ten}) // a replacement
	}
	c.put("empty", &cachedList[int]{list: nil})
	c.put("huge", &cachedList[int]{list: make([]int, maxCachedRows)}) // larger than the whole cache: not kept
	rows := 0
	for _, e := range c.entries.entries {
		rows += weight(e.value.list)
	}
	if rows != c.entries.used || rows > maxCachedRows || rows < maxCachedRows-11 {
		t.Fatalf("%d rows counted, %d held, bound %d", c.entries.used, rows, maxCachedRows)
	}
	if _, ok := c.entries.get("empty"); !ok {
		t.Fatal("the latest entry was evicted")
	}
	if _, ok := c.entries.get("huge"); ok {
		t.Fatal("an entry larger than the cache was kept")
	}
}
