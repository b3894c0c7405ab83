package models

import (
	"context"
	"database/sql"

	"gorm.io/gorm"
)

// rawStatements runs a write's own SQL on its transaction's connection
// past GORM's callbacks and statement builder. On SQLite every change runs
// in the one writer goroutine that all writes queue for, and GORM's work
// per statement (a session, callbacks, building the SQL again) was a third
// of that goroutine's time per create (issue 24). The statements are still
// the pool's prepared ones (the writer's ConnPool keeps them).
type rawStatements struct {
	ctx  context.Context
	pool gorm.ConnPool
	tx   *gorm.DB
}

func rawOf(tx *gorm.DB) rawStatements {
	ctx := tx.Statement.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return rawStatements{ctx: ctx, pool: tx.Statement.ConnPool, tx: tx}
}

// exec runs a statement. Errors read as GORM's would (a unique violation
// is gorm.ErrDuplicatedKey).
func (r rawStatements) exec(query string, args ...any) error {
	if _, err := r.pool.ExecContext(r.ctx, query, args...); err != nil {
		return r.translate(err)
	}
	return nil
}

// query runs a query of rows.
func (r rawStatements) query(query string, args ...any) (*sql.Rows, error) {
	rows, err := r.pool.QueryContext(r.ctx, query, args...)
	if err != nil {
		return nil, r.translate(err)
	}
	return rows, nil
}

// queryRow runs a query of one row; Scan answers sql.ErrNoRows without.
func (r rawStatements) queryRow(query string, args ...any) *sql.Row {
	return r.pool.QueryRowContext(r.ctx, query, args...)
}

func (r rawStatements) translate(err error) error {
	if t, ok := r.tx.Dialector.(gorm.ErrorTranslator); ok {
		return t.Translate(err)
	}
	return err
}
