package models

import "context"

// HoldVersionReads marks an account-version read as running, so that the
// reads made until release wait for the batch that runs after it.
func (s *Store) HoldVersionReads() (release func()) {
	s.versions.mu.Lock()
	s.versions.running = true
	s.versions.mu.Unlock()
	return s.startNextVersionBatch
}

// VersionReadsWaiting is how many reads, and of how many accounts, wait
// for the next batch.
func (s *Store) VersionReadsWaiting() (reads, accounts int) {
	s.versions.mu.Lock()
	defer s.versions.mu.Unlock()
	if b := s.versions.next; b != nil {
		return b.waiters, len(b.ids)
	}
	return 0, 0
}

// AccountVersion reads the account's version as a cached read does.
func (s *Store) AccountVersion(ctx context.Context, accountID string) (int64, error) {
	return s.accountVersion(ctx, accountID)
}

// VersionQueries is how many account-version queries the store has sent.
func (s *Store) VersionQueries() int64 { return s.versions.queries.Load() }
