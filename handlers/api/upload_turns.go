package api

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"
)

// accountTurns caps the uploads one account has in flight, so that one
// account's uploads (stalled ones included) never take every turn of the
// process. Like the global cap, it counts within this process.
type accountTurns struct {
	mu      sync.Mutex
	each    int64
	holders map[string]*accountTurn
}

// accountTurn is one account's turns, kept while anyone holds or waits
// for one.
type accountTurn struct {
	turns *semaphore.Weighted
	users int
}

func newAccountTurns(each int) *accountTurns {
	return &accountTurns{each: int64(each), holders: map[string]*accountTurn{}}
}

// acquire waits within ctx for one of account's turns; release gives it
// back.
func (a *accountTurns) acquire(ctx context.Context, account string) (release func(), err error) {
	a.mu.Lock()
	t := a.holders[account]
	if t == nil {
		t = &accountTurn{turns: semaphore.NewWeighted(a.each)}
		a.holders[account] = t
	}
	t.users++
	a.mu.Unlock()
	if err := t.turns.Acquire(ctx, 1); err != nil {
		a.leave(account, t)
		return nil, err
	}
	return func() {
		t.turns.Release(1)
		a.leave(account, t)
	}, nil
}

func (a *accountTurns) leave(account string, t *accountTurn) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.users--; t.users == 0 {
		delete(a.holders, account)
	}
}
