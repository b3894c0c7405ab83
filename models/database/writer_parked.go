package database

import "context"

// A change queued for SQLite's writer waits without a CPU, often for
// longer than its request runs: a request that admission control (the
// HTTP server's gate of requests run at once) let in may give its turn
// back while it waits, so that another request starts meanwhile. The
// writer's batches then hold the changes of every request waiting, not of
// the gate's size less those still running, and a commit, which costs
// what its pages cost, serves more of them.

type parkedKey struct{}

// Parked is told that a write of its request waits in SQLite's writer
// queue, with the number of changes then queued (its own included).
type Parked interface{ Queued(n int) }

// WhileQueued returns ctx carrying p, which a write on ctx tells once its
// change is queued for SQLite's writer, at most once per call of Write.
// PostgreSQL's writes, which wait holding a pooled connection, never do.
func WhileQueued(ctx context.Context, p Parked) context.Context {
	return context.WithValue(ctx, parkedKey{}, p)
}

// park tells the Parked WhileQueued gave ctx, if any.
func park(ctx context.Context, queued int) {
	if p, ok := ctx.Value(parkedKey{}).(Parked); ok {
		p.Queued(queued)
	}
}
