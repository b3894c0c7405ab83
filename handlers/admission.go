package handlers

import (
	"runtime"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/semaphore"

	"cloudplane/models"
	"cloudplane/models/database"
)

// DefaultInFlightPerCPU sizes the admission gate when Config leaves it
// unset: this many requests per CPU run their handlers at once.
const DefaultInFlightPerCPU = 16

// admission lets a bounded number of requests run their handlers at
// once; the others wait, in the order they came, for as long as their
// deadline allows, then get 503 with Retry-After like any request the
// database could not serve in time.
//
// Without it an overloaded server runs every request at once, and
// SQLite's one writer, which every write waits for, gets a CPU only
// behind hundreds of goroutines: writes become far slower than reads.
// Behind the gate every request waits in one line and the writer gets a
// CPU when it needs one (the load test's figures: docs/performance.md).
//
// Waiting requests hold a connection and a goroutine but no database
// connection and no CPU. Health checks are routed before the gate, so an
// overloaded server still answers them.
//
// A request whose write is queued for SQLite's writer gives its turn back
// (database.WhileQueued) while no more than the gate's size of changes
// are queued: it too waits without a CPU, and the requests it lets in
// meanwhile make the writer's batches larger, so each commit serves more
// writes (issue 24: 64 connections creating filesystems, batches grew
// from 21 changes to 30, creates/s by 9-15%). Past that, writes keep
// their turns: given back without a bound, they let reads run ahead of
// every queued write, and the mixed load test's writes waited twice as
// long (p99 204 against 114-126 ms). A request that gave its turn back
// finishes without one once its write is answered (it encodes its
// answer; it does not queue again): the gate bounds the requests doing
// their work, and those finishing a queued write run briefly beside them.
type admission struct {
	gate             *semaphore.Weighted
	size             int64
	running, waiting atomic.Int64
}

func newAdmission(size int) *admission {
	return &admission{gate: semaphore.NewWeighted(int64(size)), size: int64(size)}
}

// handler admits each request in turn.
func (a *admission) handler(c *fiber.Ctx) error {
	a.waiting.Add(1)
	err := a.gate.Acquire(c.UserContext(), 1)
	a.waiting.Add(-1)
	if err != nil {
		return models.Unavailable(err)
	}
	a.running.Add(1)
	t := &turn{a: a}
	defer t.release()
	c.SetUserContext(database.WhileQueued(c.UserContext(), t))
	return c.Next()
}

// turn is one admitted request's place in the gate, given back once:
// when its write queues for SQLite's writer behind no more than the gate's
// size of changes (database.Parked), or when the request ends.
type turn struct {
	a     *admission
	given atomic.Bool
}

func (t *turn) Queued(n int) {
	if n <= int(t.a.size) {
		t.release()
	}
}

func (t *turn) release() {
	if t.given.CompareAndSwap(false, true) {
		t.a.running.Add(-1)
		t.a.gate.Release(1)
	}
}

// state reports the requests running and waiting, and the gate's size.
func (a *admission) state() (running, waiting, size int64) {
	return a.running.Load(), a.waiting.Load(), a.size
}

// inFlight is the gate's size for cfg.
func inFlight(cfg Config) int {
	if cfg.MaxInFlight > 0 {
		return cfg.MaxInFlight
	}
	return DefaultInFlightPerCPU * runtime.GOMAXPROCS(0)
}
