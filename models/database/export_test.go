package database

import "time"

// SetWriteBatchWork sets how long one SQLite batch may run changes, so
// that a test can have every queued change committed in one batch.
func (db *DB) SetWriteBatchWork(d time.Duration) {
	if db.writer != nil {
		db.writer.budget.Store(int64(d))
	}
}

// SetWALRestartFrames sets how long the SQLite WAL may grow before the
// writer starts it over, so that a test sees it start over soon.
func (db *DB) SetWALRestartFrames(n int64) {
	if db.writer != nil {
		db.writer.restartAt.Store(n)
	}
}

// SQLiteDriver is the driver name the pools open SQLite with.
const SQLiteDriver = sqliteDriver

// StatementsKept counts the statements SQLite connections prepared to
// keep, in this process so far.
func StatementsKept() int64 { return statementsKept.Load() }

// SyncDatabaseFile syncs the SQLite database file as the checkpointer does
// after its passes.
func (db *DB) SyncDatabaseFile() {
	if db.held != nil {
		syncFile(db.held, db.held.key)
	}
}
