package database

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// commitWatch tells whether anything committed to a SQLite database since
// it last looked, by any connection of any process, for the price of a few
// memory reads: it reads the WAL-index header in the database's shared
// memory file (-shm), as SQLite's own readers do before every read
// transaction to learn whether their page cache is still good
// (walIndexTryHdr in SQLite's wal.c). Every commit rewrites that header
// (its change counter, last frame and checksum), so an unchanged header
// means no commit ended in between. The format is SQLite's file format,
// shared by every process and SQLite version that opens the database
// together: https://www.sqlite.org/walformat.html#the_wal_index_header.
//
// A query asking the same (PRAGMA data_version) cost as much as the
// account-version read it was to save, a fifth of a cached read's CPU:
// starting its read transaction takes and drops a lock on the -shm file,
// two system calls.
//
// The watch holds a connection of its own open: while any connection is
// open, no process deletes or re-creates the -shm file, so the mapping
// stays the file every process writes.
type commitWatch struct {
	dsn, shmPath string
	held         *heldFiles // the -shm file's descriptor, kept open

	mu     sync.Mutex
	failed error // once set, the watch answers nothing (callers query)
	conn   *sqlite3.SQLiteConn
	header headerView // the -shm file's header, mapped; nil until opened
	last   walIndexHeader
	seq    int64 // changes whenever last does
}

// walIndexHeader is one copy of the WAL-index header: 48 bytes, 12 words.
type walIndexHeader [12]uint32

// isInit reports the header's byte 12, set once SQLite has built the
// index. The header is in the machine's byte order.
func (h *walIndexHeader) isInit() bool {
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], h[3])
	return b[0] != 0
}

func newCommitWatch(dsn, path string, held *heldFiles) *commitWatch {
	return &commitWatch{dsn: dsn, shmPath: path + "-shm", held: held}
}

// version returns a number that is the same for two calls only if no
// commit ended between them; ok is false when the watch cannot tell (no
// -shm file, a header being rewritten at that instant): the caller then
// asks the database.
func (w *commitWatch) version() (v int64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		return 0, false
	}
	if w.header == nil {
		if err := w.open(); err != nil {
			w.failed = err
			w.drop()
			return 0, false
		}
	}
	h, ok := w.header.read()
	if !ok {
		return 0, false
	}
	if h != w.last || w.seq == 0 {
		w.last = h
		w.seq++
	}
	return w.seq, true
}

func (w *commitWatch) open() error {
	c, err := (&sqlite3.SQLiteDriver{}).Open(w.dsn)
	if err != nil {
		return err
	}
	w.conn = c.(*sqlite3.SQLiteConn)
	// One read makes sure the WAL index exists and is built; the
	// connection then stays idle, holding no lock but the -shm file's
	// "in use" one.
	rows, err := w.conn.Query("PRAGMA data_version", nil) //nolint:staticcheck // context-free on purpose
	if err != nil {
		return err
	}
	err = rows.Next(make([]driver.Value, 1))
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	shm, err := w.held.open(w.shmPath)
	if err != nil {
		return err
	}
	w.header, err = mapHeader(shm)
	return err
}

func (w *commitWatch) drop() {
	if w.header != nil {
		w.header.unmap()
		w.header = nil
	}
	if w.conn != nil {
		_ = w.conn.Close()
		w.conn = nil
	}
}

func (w *commitWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drop()
	w.failed = errWatchClosed
}

var errWatchClosed = errors.New("commit watch closed")

// DataVersion returns a number that stays the same between two calls only
// if no change was committed to the database in between, by this process
// or any other. ok is false when there is no such number (PostgreSQL) or
// it cannot be read now: the caller must then read the database. A caller
// may keep what it read after one call for as long as later calls return
// the same number with ok.
func (db *DB) DataVersion() (v int64, ok bool) {
	if db.commits == nil {
		return 0, false
	}
	return db.commits.version()
}
