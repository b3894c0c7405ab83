package database

// QueuedLockedWrites is how many writes of key wait in WriteAfterLock's
// queue, not yet taken into a transaction.
func (db *DB) QueuedLockedWrites(key string) int {
	db.locked.mu.Lock()
	defer db.locked.mu.Unlock()
	n := 0
	for _, w := range db.locked.m[key] {
		if w.state == queued {
			n++
		}
	}
	return n
}
