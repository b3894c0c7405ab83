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

// WhileQueued returns ctx carrying parked, which a write on ctx calls
// once its change is queued for SQLite's writer, with the number of
// changes then queued (its own included), at most once per call of Write.
// PostgreSQL's writes, which wait holding a pooled connection, never call
// it.
func WhileQueued(ctx context.Context, parked func(queued int)) context.Context {
	return context.WithValue(ctx, parkedKey{}, parked)
}

// park calls the function WhileQueued gave ctx, if any.
func park(ctx context.Context, queued int) {
	if parked, ok := ctx.Value(parkedKey{}).(func(int)); ok {
		parked(queued)
	}
}
