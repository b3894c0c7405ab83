//go:build unix

package database

import (
	"encoding/binary"
	"testing"
)

// A header is trusted only when both copies agree and the index is built:
// a rewrite caught half way, or an index not built yet, reads as "cannot
// tell", and callers query the database instead.
func TestWALIndexHeaderReadsOnlyWhenSettled(t *testing.T) {
	view := make(headerView, walIndexHeaderSize) // word-aligned, as the mapping is
	setCopy := func(copyIndex int, change, mxFrame uint32, init bool) {
		base := copyIndex * 48
		binary.NativeEndian.PutUint32(view[base+8:], change)
		view[base+12] = 0
		if init {
			view[base+12] = 1
		}
		binary.NativeEndian.PutUint32(view[base+16:], mxFrame)
	}

	setCopy(0, 7, 100, true)
	setCopy(1, 7, 100, true)
	settled, ok := view.read()
	if !ok {
		t.Fatal("two equal, built copies were not trusted")
	}

	setCopy(1, 8, 101, true) // SQLite writes the second copy first
	if _, ok := view.read(); ok {
		t.Fatal("a header rewritten half way was trusted")
	}
	setCopy(0, 8, 101, true)
	now, ok := view.read()
	if !ok || now == settled {
		t.Fatalf("after a commit: header %v (trusted %v), the same as before it", now, ok)
	}

	setCopy(0, 8, 101, false)
	setCopy(1, 8, 101, false)
	if _, ok := view.read(); ok {
		t.Fatal("an index not yet built was trusted")
	}
}
