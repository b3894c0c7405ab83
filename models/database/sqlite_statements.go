package database

import (
	"context"
	"database/sql/driver"
	"strings"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"
)

// maxStatementsPerConn bounds the queries a connection keeps prepared.
// GORM writes a query's text anew for each IN list length, so the texts
// are not a closed set; a hot read's text recurs and stays.
const maxStatementsPerConn = 32

// connStatements are the queries one SQLite connection keeps prepared.
// go-sqlite3 prepares a query on every call and finalizes it when its rows
// close: under the load test, SQLite compiling the same hot reads again was
// 5% of the server's CPU (a fifth of a filesystem list read). A statement
// serves one query at a time; a second query of the same text while the
// first's rows are open (within a transaction) is prepared apart. Only
// the connection's goroutine of the moment touches it (database/sql hands
// a connection to one caller at a time), so it needs no lock.
type connStatements struct {
	m    map[string]*keptStatement
	tick uint64 // counts uses, for evicting the least recently used
}

// statementsKept counts the statements prepared to be kept, for tests.
var statementsKept atomic.Int64

type keptStatement struct {
	stmt     *sqlite3.SQLiteStmt
	inUse    bool // rows of it are open
	lastUsed uint64
}

// query runs query on conn with a kept statement, preparing and keeping
// it on first use; the rows' Close must call release. ok is false when
// the query is not one to keep (several statements, named arguments) or
// cannot be kept now (its statement busy, every kept one busy): the caller
// then runs it the driver's way.
func (cs *connStatements) query(conn *sqlite3.SQLiteConn, query string, args []driver.NamedValue) (rows *sqlite3.SQLiteRows, release func(), ok bool, err error) {
	for _, a := range args {
		if a.Name != "" {
			return nil, nil, false, nil
		}
	}
	k := cs.m[query]
	if k == nil {
		if strings.Contains(strings.TrimRight(strings.TrimSpace(query), ";"), ";") || !cs.makeRoom() {
			return nil, nil, false, nil // several statements: the driver runs them in turn
		}
		s, err := conn.Prepare(query)
		if err != nil {
			return nil, nil, true, err
		}
		k = &keptStatement{stmt: s.(*sqlite3.SQLiteStmt)}
		statementsKept.Add(1)
		if cs.m == nil {
			cs.m = make(map[string]*keptStatement, maxStatementsPerConn)
		}
		cs.m[query] = k
	}
	if k.inUse || k.stmt.NumInput() != len(args) {
		return nil, nil, false, nil
	}
	cs.tick++
	k.lastUsed = cs.tick
	// The rows end with the caller's context between rows (deadlineRows),
	// so the statement runs without one.
	r, err := k.stmt.QueryContext(context.Background(), args)
	if err != nil {
		return nil, nil, true, err
	}
	k.inUse = true
	return r.(*sqlite3.SQLiteRows), func() { k.inUse = false }, true, nil
}

// makeRoom evicts the least recently used statement not in use when the
// connection keeps as many as it may; false when all of them are in use.
func (cs *connStatements) makeRoom() bool {
	if len(cs.m) < maxStatementsPerConn {
		return true
	}
	var oldest string
	for q, e := range cs.m {
		if !e.inUse && (oldest == "" || e.lastUsed < cs.m[oldest].lastUsed) {
			oldest = q
		}
	}
	if oldest == "" {
		return false
	}
	_ = cs.m[oldest].stmt.Close()
	delete(cs.m, oldest)
	return true
}

// close finalizes every kept statement, before the connection closes.
func (cs *connStatements) close() {
	for q, k := range cs.m {
		_ = k.stmt.Close()
		delete(cs.m, q)
	}
}
