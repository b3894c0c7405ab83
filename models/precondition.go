package models

import (
	"slices"
	"strconv"

	"gorm.io/gorm"
)

// Precondition is a write's If-Match: the versions of the object the
// caller last read. The zero value asks nothing (no If-Match, or "*" on
// an object that exists). It is checked inside the write's transaction,
// in the UPDATE's WHERE clause, so of two writers that read the same
// version exactly one succeeds.
type Precondition struct {
	versions []int64
	set      bool
}

// IfVersion is the precondition that the object is at one of versions.
// With none given, nothing can match.
func IfVersion(versions ...int64) Precondition {
	return Precondition{versions: versions, set: true}
}

// ParseVersion reads a version as an ETag or a form shows it: the
// canonical decimal of a positive number ("7"; not "07", "+7", " 7" or
// "7.0"). Any other spelling names no version, so it can match none.
func ParseVersion(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// Set reports whether the precondition asks anything.
func (p Precondition) Set() bool { return p.set }

// holds reports whether an object at version meets the precondition.
func (p Precondition) holds(version int64) bool {
	return !p.set || slices.Contains(p.versions, version)
}

// where limits an UPDATE to rows whose column meets the precondition.
func (p Precondition) where(tx *gorm.DB, column string) *gorm.DB {
	if !p.set {
		return tx
	}
	if len(p.versions) == 0 {
		return tx.Where("1 = 0")
	}
	return tx.Where(column+" IN ?", p.versions)
}

// errPreconditionFailed is the answer to a write whose If-Match no longer
// holds: someone else changed the object since the caller read it.
var errPreconditionFailed = &Error{Code: CodePreconditionFailed,
	Message:    "The object changed since you read it (If-Match does not match its ETag); nothing was changed",
	Suggestion: "Read the object again, apply your change to it, and retry with its new ETag"}
