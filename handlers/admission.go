package handlers

import (
	"runtime"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/semaphore"

	"cloudplane/models"
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
	defer func() {
		a.running.Add(-1)
		a.gate.Release(1)
	}()
	return c.Next()
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
