package models

import (
	"container/list"
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Every bcrypt hash and comparison goes through the store's password
// slots: at the production cost one takes about 0.3 s of a CPU, so a few
// clients posting passwords could otherwise take every core from the API.
// The bound is per store, which is per process, and covers the CLI and
// both front doors alike.

// defaultPasswordQueueWait is how long a password check waits for a slot
// when the caller's context has no earlier deadline.
const defaultPasswordQueueWait = 5 * time.Second

// defaultPasswordWaitersPerHasher sizes the queue of password checks
// other than known devices': at about 0.3 s a hash, four per hasher is
// about a second's wait.
const defaultPasswordWaitersPerHasher = 4

var errPasswordQueueFull = errors.New("password queue full")

var errPasswordsBusy = &Error{Code: CodeRateLimited,
	Message:    "The server is busy checking other passwords, so this one was not checked",
	Suggestion: "Try again in a few seconds"}

// passwordSlots bounds how many bcrypt operations run at once. Waiters
// queue in two lines: a sign-in from a known device (a browser that has
// signed in to that account before, as its device cookie proves) is
// served before every other waiter, so strangers flooding wrong
// passwords from many addresses cannot make the account's owner wait
// behind them. Within a line, first come, first served. The other line
// is short: a caller who finds it full is refused at once instead of
// holding a request slot (handlers' admission gate) for the queue wait,
// which would make everyone, known devices and API clients included,
// queue behind the flood before reaching this line at all.
// golang.org/x/sync/semaphore has one FIFO line only, hence this.
type passwordSlots struct {
	wait       time.Duration
	maxWaiting int // in the inTurn line

	mu    sync.Mutex
	free  int
	lines [2]list.List // of chan struct{}, by passwordPriority
}

// passwordPriority picks a waiter's line.
type passwordPriority int

const (
	knownDeviceFirst passwordPriority = iota // served first
	inTurn                                   // everyone else
)

func newPasswordSlots(cfg Config) *passwordSlots {
	n := cfg.PasswordHashers
	if n <= 0 {
		n = runtime.NumCPU()
	}
	wait := cfg.PasswordQueueWait
	if wait <= 0 {
		wait = defaultPasswordQueueWait
	}
	waiting := cfg.PasswordQueueLength
	if waiting <= 0 {
		waiting = defaultPasswordWaitersPerHasher * n
	}
	return &passwordSlots{free: n, wait: wait, maxWaiting: waiting}
}

// run calls fn in a slot. A caller that finds none free before its
// context's deadline, or the queue wait, or finds its line full, gets
// errPasswordsBusy: a waiter gives up instead of piling up behind an
// attacker.
func (p *passwordSlots) run(ctx context.Context, prio passwordPriority, fn func()) error {
	ctx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := p.acquire(ctx, prio); err != nil {
		return errPasswordsBusy
	}
	defer p.release()
	fn()
	return nil
}

func (p *passwordSlots) acquire(ctx context.Context, prio passwordPriority) error {
	p.mu.Lock()
	if p.free > 0 && p.nobodyAhead(prio) {
		p.free--
		p.mu.Unlock()
		return nil
	}
	if prio == inTurn && p.lines[inTurn].Len() >= p.maxWaiting {
		p.mu.Unlock()
		return errPasswordQueueFull
	}
	granted := make(chan struct{})
	waiter := p.lines[prio].PushBack(granted)
	p.mu.Unlock()
	select {
	case <-granted:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-granted: // handed a slot just as the wait ended: use it
		return nil
	default:
		p.lines[prio].Remove(waiter)
		return ctx.Err()
	}
}

// nobodyAhead reports whether no waiter would be served before one of prio.
func (p *passwordSlots) nobodyAhead(prio passwordPriority) bool {
	for line := range p.lines[:prio+1] {
		if p.lines[line].Len() > 0 {
			return false
		}
	}
	return true
}

// release hands the slot to the first waiter of the first line that has
// one, or frees it.
func (p *passwordSlots) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.lines {
		if front := p.lines[i].Front(); front != nil {
			close(p.lines[i].Remove(front).(chan struct{}))
			return
		}
	}
	p.free++
}

// hashPassword returns the bcrypt hash of pw at the store's cost; prio
// picks its line in the queue for a slot.
func (s *Store) hashPassword(ctx context.Context, prio passwordPriority, pw string) (string, error) {
	var hash []byte
	var err error
	if busy := s.passwords.run(ctx, prio, func() {
		hash, err = bcrypt.GenerateFromPassword([]byte(pw), s.cfg.PasswordCost)
	}); busy != nil {
		return "", busy
	}
	return string(hash), err
}

// passwordMatches reports whether pw is the one hashed in hash, in time
// that does not depend on whether it matched. A hash bcrypt cannot read
// matches nothing. prio picks its line in the queue for a slot.
func (s *Store) passwordMatches(ctx context.Context, prio passwordPriority, hash []byte, pw string) (bool, error) {
	matched := false
	err := s.passwords.run(ctx, prio, func() { matched = bcrypt.CompareHashAndPassword(hash, []byte(pw)) == nil })
	return matched, err
}

// passwordPriority is the line an actor's password work waits in: someone
// signed in (or the operator) has already proven who they are, as a known
// device has, so strangers flooding the sign-in form cannot make them
// wait or refuse them.
func (a Actor) passwordPriority() passwordPriority {
	if a.SessionID != "" || a.Operator {
		return knownDeviceFirst
	}
	return inTurn
}

// IsPasswordsBusy reports whether err is the answer to a password check
// that found no free slot in time.
func IsPasswordsBusy(err error) bool { return errors.Is(err, errPasswordsBusy) }
