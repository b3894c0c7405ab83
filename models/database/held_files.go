package database

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// heldFiles are the files of a SQLite database that this process opens
// beside SQLite: the database file, to sync it after the checkpointer's
// passes, and the -shm file, to map its header (commitWatch).
//
// They are opened once and closed only when the last DB of this process
// on that database closes, after its SQLite connections: closing any
// descriptor of a file drops every POSIX lock the process holds on it,
// SQLite's own included
// (https://www.sqlite.org/howtocorrupt.html, "Posix advisory locks
// canceled by a separate thread doing close()"). Opened and closed per
// use, they left a running server holding no lock on its -shm file:
// another process opening the database (a CLI command, a test) then took
// it for unused and rebuilt the -shm file under the server, which died of
// SIGBUS reading it. Without its shared lock on the database file, a
// server could likewise see its WAL deleted by another process's last
// close.
type heldFiles struct {
	key   string // the database's absolute path, in heldRegistry
	users int    // open DBs on the database; guarded by heldRegistry.mu

	mu    sync.Mutex
	files map[string]*os.File
}

var heldRegistry = struct {
	mu sync.Mutex
	m  map[string]*heldFiles
}{m: map[string]*heldFiles{}}

// holdFiles returns the held files of the database at path, counting one
// more DB that uses them; each call needs a release.
func holdFiles(path string) *heldFiles {
	key, err := filepath.Abs(path)
	if err != nil {
		key = path
	}
	heldRegistry.mu.Lock()
	defer heldRegistry.mu.Unlock()
	h := heldRegistry.m[key]
	if h == nil {
		h = &heldFiles{key: key, files: map[string]*os.File{}}
		heldRegistry.m[key] = h
	}
	h.users++
	return h
}

// open returns the file at path, opened read-only the first time and held
// until the last release.
func (h *heldFiles) open(path string) (*os.File, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.files == nil {
		// Released: a checkpoint pass that ended as the DB closed must
		// not open a descriptor nothing would close.
		return nil, errFilesReleased
	}
	if f := h.files[path]; f != nil {
		return f, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	h.files[path] = f
	return f, nil
}

// release counts one DB less; the last closes the files. Call it once the
// DB's SQLite connections are closed.
//
// The files close with the registry locked: a DB of the same database
// opening meanwhile waits in holdFiles, so no close can drop the SQLite
// locks its connections take next.
func (h *heldFiles) release() {
	heldRegistry.mu.Lock()
	defer heldRegistry.mu.Unlock()
	h.users--
	if h.users > 0 {
		return
	}
	delete(heldRegistry.m, h.key)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.files {
		_ = f.Close()
	}
	h.files = nil
}

var errFilesReleased = errors.New("the database's files were released: it is closed")
