package models

import (
	"context"
	"sync"
)

// versionMemo keeps the account versions last read from SQLite, labelled
// with the database's data version before the read (database.DB.DataVersion).
// While the data version is unchanged nothing has committed, so a version
// read then is still the current one and the query is skipped: on a server
// that mostly reads, a cached list's read then costs no query at all (that
// query was a fifth of a cached read's CPU). Any commit, by any process,
// changes the data version and empties the memo, so nothing older than a
// request is ever served.
type versionMemo struct {
	mu          sync.Mutex
	dataVersion int64
	versions    map[string]int64
}

// maxMemoVersions bounds the memo: past it, it starts over.
const maxMemoVersions = 1 << 16

// get returns the version of id read at dataVersion, if the memo has it.
// A memo of another data version is emptied and takes the new one.
func (m *versionMemo) get(dataVersion int64, id string) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.versions == nil || m.dataVersion != dataVersion || len(m.versions) > maxMemoVersions {
		m.versions = map[string]int64{}
		m.dataVersion = dataVersion
		return 0, false
	}
	v, ok := m.versions[id]
	return v, ok
}

// put keeps the version of id, read after dataVersion was. A version read
// after a later commit is newer than its label, which is safe: the next
// get sees the new data version and drops it.
func (m *versionMemo) put(dataVersion int64, id string, version int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dataVersion == dataVersion && m.versions != nil {
		m.versions[id] = version
	}
}

// readAccountVersion reads the account's version from the memo when
// nothing committed since it was read, else from the database.
func (s *Store) readAccountVersion(ctx context.Context, accountID string) (int64, error) {
	dataVersion, ok := s.db.DataVersion()
	if !ok { // PostgreSQL, or SQLite cannot tell now: ask the database
		return s.queryAccountVersion(ctx, accountID)
	}
	if v, ok := s.versionMemo.get(dataVersion, accountID); ok {
		return v, nil
	}
	v, err := s.queryAccountVersion(ctx, accountID)
	if err == nil {
		s.versionMemo.put(dataVersion, accountID, v)
	}
	return v, err
}

// readAccountVersions sets versions[id] for every id of a batch, whose
// map holds 0 for each beforehand, as readAccountVersion does.
func (s *Store) readAccountVersions(ctx context.Context, ids []string, versions map[string]int64) error {
	dataVersion, ok := s.db.DataVersion()
	if !ok {
		return s.queryAccountVersions(ctx, ids, versions)
	}
	var missing []string
	for _, id := range ids {
		if v, ok := s.versionMemo.get(dataVersion, id); ok {
			versions[id] = v
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := s.queryAccountVersions(ctx, missing, versions); err != nil {
		return err
	}
	for _, id := range missing {
		s.versionMemo.put(dataVersion, id, versions[id])
	}
	return nil
}
