package main

/*
#include <malloc.h>

// sqlite3_memory_used and sqlite3_memory_highwater are SQLite's own count
// of what it allocated, all connections together; the library is linked
// into this binary by github.com/mattn/go-sqlite3.
extern long long sqlite3_memory_used(void);
extern long long sqlite3_memory_highwater(int reset);
*/
import "C"

// cMemory is the memory the C side of the process holds, which the Go
// runtime's statistics (expvar's memstats) do not count: SQLite's
// allocations, its page caches above all, and what glibc's malloc keeps
// for them.
type cMemory struct {
	// SQLiteUsed and SQLiteHighwater are SQLite's allocations now and at
	// their peak.
	SQLiteUsed, SQLiteHighwater int64
	// MallocInUse is what malloc handed out and was not freed (SQLite's
	// and any other C code's); MallocFree what it keeps free in its
	// arenas, resident or not, for later allocations.
	MallocInUse, MallocFree int64
}

func readCMemory() cMemory {
	m := C.mallinfo2()
	return cMemory{
		SQLiteUsed:      int64(C.sqlite3_memory_used()),
		SQLiteHighwater: int64(C.sqlite3_memory_highwater(0)),
		MallocInUse:     int64(m.uordblks + m.hblkhd),
		MallocFree:      int64(m.fordblks),
	}
}
