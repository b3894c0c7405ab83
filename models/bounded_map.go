package models

// boundedMap is the store of the in-memory caches: a map whose entries'
// costs (bytes, or rows) add up to at most max. Making room for an entry
// evicts arbitrary others: Go randomises map iteration, so that is O(1)
// per put with no bookkeeping on the read path. An entry that costs more
// than maxEntry is not kept at all, so that one huge value cannot empty
// the cache. Callers hold their own lock around it.
type boundedMap[K comparable, V any] struct {
	entries       map[K]costed[V]
	used          int
	max, maxEntry int
}

type costed[V any] struct {
	value V
	cost  int
}

func newBoundedMap[K comparable, V any](max, maxEntry int) boundedMap[K, V] {
	return boundedMap[K, V]{entries: map[K]costed[V]{}, max: max, maxEntry: maxEntry}
}

func (m *boundedMap[K, V]) get(k K) (V, bool) {
	e, ok := m.entries[k]
	return e.value, ok
}

// put keeps v under k in place of what was there, evicting others to make
// room; one costing more than maxEntry only removes what was there.
func (m *boundedMap[K, V]) put(k K, v V, cost int) {
	if old, ok := m.entries[k]; ok {
		m.used -= old.cost
		delete(m.entries, k)
	}
	if cost > m.maxEntry {
		return
	}
	for victim, old := range m.entries {
		if m.used+cost <= m.max {
			break
		}
		m.used -= old.cost
		delete(m.entries, victim)
	}
	m.entries[k] = costed[V]{value: v, cost: cost}
	m.used += cost
}
