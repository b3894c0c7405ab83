package models

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// versionReads coalesces the account-version reads of concurrent requests
// (every cached list read makes one) without serving any of them a version
// older than the request: one read runs at a time; requests that arrive
// while it runs wait for the next, which starts once it has finished, so
// after they arrived, and reads all their accounts in one query. A read
// that finds none running runs at once, on its own.
//
// A loaded server so makes one query per batch of requests rather than one
// per request (a third of a cached read's CPU went to this query), and a
// read still sees every change committed before it began, by any process
// or replica: the guarantee of accountCache is unchanged.
type versionReads struct {
	mu      sync.Mutex
	running bool
	next    *versionBatch // the batch that runs after the running read
	queries atomic.Int64  // queries sent, for tests
}

// versionBatch is one query's accounts and, once done is closed, their
// versions (0 for an account without a row) or the query's error.
type versionBatch struct {
	waiters  int // requests waiting for it
	ids      []string
	versions map[string]int64
	err      error
	done     chan struct{}
}

// versionBatchTimeout bounds a batch's query, which runs for several
// requests and so under none of their contexts.
const versionBatchTimeout = 10 * time.Second

// maxVersionBatch is the most accounts one query reads; a batch of more
// makes several.
const maxVersionBatch = 64

// accountVersion reads the account's current version, 0 for an account
// never changed: the version committed before the call, or a later one.
func (s *Store) accountVersion(ctx context.Context, accountID string) (int64, error) {
	r := &s.versions
	r.mu.Lock()
	if !r.running {
		r.running = true
		r.mu.Unlock()
		v, err := s.readAccountVersion(ctx, accountID)
		s.startNextVersionBatch()
		return v, err
	}
	b := r.next
	if b == nil {
		b = &versionBatch{versions: map[string]int64{}, done: make(chan struct{})}
		r.next = b
	}
	b.waiters++
	if _, ok := b.versions[accountID]; !ok {
		b.versions[accountID] = 0
		b.ids = append(b.ids, accountID)
	}
	r.mu.Unlock()
	select {
	case <-b.done:
		return b.versions[accountID], b.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// startNextVersionBatch ends the running read: the batch waiting for it,
// if any, runs now, else nothing runs.
func (s *Store) startNextVersionBatch() {
	r := &s.versions
	r.mu.Lock()
	b := r.next
	r.next = nil
	r.running = b != nil
	r.mu.Unlock()
	if b != nil {
		go s.runVersionBatch(b)
	}
}

func (s *Store) runVersionBatch(b *versionBatch) {
	ctx, cancel := context.WithTimeout(context.Background(), versionBatchTimeout)
	qctx, err := s.versionQueryContext(ctx)
	if err == nil {
		err = s.readAccountVersions(qctx, b.ids, b.versions)
	}
	b.err = err
	cancel()
	close(b.done)
	s.startNextVersionBatch()
}

// accountVersionsSQL[k] reads the versions of 1<<k accounts: batches are
// padded to a power of two so that a few prepared statements serve all.
var accountVersionsSQL = func() (q [7]string) {
	for k := range q {
		args := make([]string, 1<<k)
		for i := range args {
			args[i] = fmt.Sprintf("$%d", i+1)
		}
		q[k] = "SELECT account_id, version FROM account_versions WHERE account_id IN (" + strings.Join(args, ", ") + ")"
	}
	return q
}()

// queryAccountVersions sets versions[id] for every account of ids that
// has a version row.
func (s *Store) queryAccountVersions(ctx context.Context, ids []string, versions map[string]int64) error {
	for len(ids) > 0 {
		n := min(len(ids), maxVersionBatch)
		k := 0
		for 1<<k < n {
			k++
		}
		args := make([]any, 1<<k)
		for i := range args {
			args[i] = ids[min(i, n-1)] // padded with the last id again
		}
		ids = ids[n:]
		s.versions.queries.Add(1)
		stmt, err := s.db.Prepare(ctx, accountVersionsSQL[k])
		if err != nil {
			return err
		}
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var v int64
			if err := rows.Scan(&id, &v); err != nil {
				_ = rows.Close()
				return err
			}
			versions[id] = v
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// versionQueryContext is the context a version query runs under. On
// SQLite it cannot be cancelled once started: go-sqlite3 runs every step
// of a cancellable query in a goroutine of its own, which cost more CPU
// than the read itself, an indexed row that takes microseconds and never
// waits for a writer (WAL). A context already done is refused. (The wait
// for a free pool connection is then unbounded too, but the pool's other
// holders are reads of their own bounded requests.)
func (s *Store) versionQueryContext(ctx context.Context) (context.Context, error) {
	if !s.db.IsSQLite() {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}
