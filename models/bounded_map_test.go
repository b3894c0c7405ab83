package models

import (
	"fmt"
	"testing"
)

// The map's costs stay within its bound through replacements and
// evictions, its count of them stays true, an entry larger than maxEntry
// is not kept (and removes what its key held), and the latest put stays.
func TestBoundedMapStaysWithinItsBound(t *testing.T) {
	m := newBoundedMap[string, int](100, 40)
	check := func(after string) {
		t.Helper()
		sum := 0
		for _, e := range m.entries {
			sum += e.cost
		}
		if sum != m.used || sum > m.max {
			t.Fatalf("after %s: counts %d, holds %d, bound %d", after, m.used, sum, m.max)
		}
	}
	for i := range 50 {
		k := fmt.Sprint(i % 7)
		m.put(k, i, 1+i%30)
		check(fmt.Sprintf("put %d", i))
		if v, ok := m.get(k); !ok || v != i {
			t.Fatalf("put %d: the latest entry reads %d, %v", i, v, ok)
		}
	}
	m.put("3", -1, 41)
	check("an entry over maxEntry")
	if _, ok := m.get("3"); ok {
		t.Fatal("an entry over maxEntry was kept, or left the old one")
	}
}
