//go:build unix

package database

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// walIndexHeaderSize is the two copies of the header at the start of the
// -shm file; the checkpoint information follows them.
const walIndexHeaderSize = 2 * 48

// headerView is the start of a -shm file, mapped shared and read only.
type headerView []byte

// mapHeader maps the header of the -shm file f, which the caller keeps
// open (heldFiles: closing it would drop SQLite's locks on the file).
func mapHeader(f *os.File) (headerView, error) {
	path := f.Name()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() < walIndexHeaderSize {
		return nil, fmt.Errorf("%s: %d bytes, too short for a WAL index", path, info.Size())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, walIndexHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return headerView(b), nil
}

// read returns the header when both copies agree and the index is built.
// SQLite writes the second copy, then the first, with a memory barrier
// between; reading the first, then the second, sees them equal only when
// no rewrite was under way, or none had reached the second copy: then it
// is the header of every commit that ended before the call.
func (v headerView) read() (h walIndexHeader, ok bool) {
	words := (*[24]uint32)(unsafe.Pointer(&v[0]))
	var second walIndexHeader
	for i := range h {
		h[i] = atomic.LoadUint32(&words[i])
	}
	for i := range second {
		second[i] = atomic.LoadUint32(&words[12+i])
	}
	return h, h == second && h.isInit()
}

func (v headerView) unmap() { _ = syscall.Munmap(v) }
