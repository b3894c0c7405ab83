package database

import (
	"context"
	"database/sql"
	"sync"
)

// statements prepares hot queries once and keeps them, so the reads on
// every request's path skip GORM's statement building and reflection.
// database/sql re-prepares a statement on each pooled connection as needed.
// Preparing is lazy: a database is opened before its schema is migrated.
//
// The lock guards only the map, never a wait for a connection: preparing
// needs one, and a caller that holds one while it waits for the lock
// would stop the pool once all connections are held that way. Two first
// callers may both prepare; the loser closes its copy.
type statements struct {
	db *sql.DB
	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStatements(db *sql.DB) *statements {
	return &statements{db: db, m: map[string]*sql.Stmt{}}
}

func (p *statements) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	p.mu.RLock()
	stmt, ok := p.m[query]
	p.mu.RUnlock()
	if ok {
		return stmt, nil
	}
	stmt, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if kept, ok := p.m[query]; ok {
		_ = stmt.Close()
		return kept, nil
	}
	p.m[query] = stmt
	return stmt, nil
}

func (p *statements) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, stmt := range p.m {
		_ = stmt.Close()
		delete(p.m, q)
	}
}
