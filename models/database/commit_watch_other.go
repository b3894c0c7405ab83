//go:build !unix

package database

import (
	"errors"
	"os"
)

// headerView is not mapped where there is no mmap: the watch then answers
// nothing, and readers query the database as before.
type headerView []byte

func mapHeader(*os.File) (headerView, error) {
	return nil, errors.New("no shared memory mapping on this system")
}

func (headerView) read() (walIndexHeader, bool) { return walIndexHeader{}, false }

func (headerView) unmap() {}
