package models

import (
	"context"
	"errors"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sync/semaphore"
)

// Every bcrypt hash and comparison goes through the store's password
// slots: at the production cost one takes about 0.3 s of a CPU, so a few
// clients posting passwords could otherwise take every core from the API.
// The bound is per store, which is per process, and covers the CLI and
// both front doors alike.

// defaultPasswordQueueWait is how long a password check waits for a slot
// when the caller's context has no earlier deadline.
const defaultPasswordQueueWait = 5 * time.Second

var errPasswordsBusy = &Error{Code: CodeRateLimited,
	Message:    "The server is busy checking other passwords, so this one was not checked",
	Suggestion: "Try again in a few seconds"}

// passwordSlots bounds how many bcrypt operations run at once.
type passwordSlots struct {
	sem  *semaphore.Weighted
	wait time.Duration
}

func newPasswordSlots(cfg Config) passwordSlots {
	n := cfg.PasswordHashers
	if n <= 0 {
		n = runtime.NumCPU()
	}
	wait := cfg.PasswordQueueWait
	if wait <= 0 {
		wait = defaultPasswordQueueWait
	}
	return passwordSlots{sem: semaphore.NewWeighted(int64(n)), wait: wait}
}

// run calls fn in a slot. A caller that finds none free before its
// context's deadline, or the queue wait, gets errPasswordsBusy: a
// waiter gives up instead of piling up behind an attacker.
func (p passwordSlots) run(ctx context.Context, fn func()) error {
	ctx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := p.sem.Acquire(ctx, 1); err != nil {
		return errPasswordsBusy
	}
	defer p.sem.Release(1)
	fn()
	return nil
}

// hashPassword returns the bcrypt hash of pw at the store's cost.
func (s *Store) hashPassword(ctx context.Context, pw string) (string, error) {
	var hash []byte
	var err error
	if busy := s.passwords.run(ctx, func() {
		hash, err = bcrypt.GenerateFromPassword([]byte(pw), s.cfg.PasswordCost)
	}); busy != nil {
		return "", busy
	}
	return string(hash), err
}

// passwordMatches reports whether pw is the one hashed in hash, in time
// that does not depend on whether it matched. A hash bcrypt cannot read
// matches nothing.
func (s *Store) passwordMatches(ctx context.Context, hash []byte, pw string) (bool, error) {
	matched := false
	err := s.passwords.run(ctx, func() { matched = bcrypt.CompareHashAndPassword(hash, []byte(pw)) == nil })
	return matched, err
}

// IsPasswordsBusy reports whether err is the answer to a password check
// that found no free slot in time.
func IsPasswordsBusy(err error) bool { return errors.Is(err, errPasswordsBusy) }
