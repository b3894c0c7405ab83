package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os/exec"
	"time"

	"cloudplane/handlers/testserver"
)

// outagePlan takes the database away in the middle of the load: stop and
// start are shell commands (for a local Debian cluster, "pg_ctlcluster 15
// main stop -m fast" and "... start"). While it is away, and for recovery
// after it accepts connections again, a well-formed 503
// provider/internal-unavailable with Retry-After is the answer the
// contract promises and does not fail the run; any other failure does,
// and so does a 503 later than that.
type outagePlan struct {
	stop, start string
	at          time.Duration // after the load starts
	down        time.Duration // between stop and start
	recovery    time.Duration
}

func (p outagePlan) planned() bool { return p.stop != "" }

// outage is what happened: when the stop command began and when the
// database first answered a ping after the start command.
type outage struct {
	stopped, back time.Time
	err           error
}

// unavailableCode is the contract's code for a database that is away.
const unavailableCode = "provider/internal-unavailable"

// commandTimeout bounds each of the plan's commands.
const commandTimeout = 2 * time.Minute

// takeDatabaseAway carries out p from start on, against the database at
// dsn, and reports what happened once the database is back.
func takeDatabaseAway(ctx context.Context, p outagePlan, dsn string, start time.Time) outage {
	var o outage
	select {
	case <-time.After(time.Until(start.Add(p.at))):
	case <-ctx.Done():
		o.err = ctx.Err()
		return o
	}
	o.stopped = time.Now()
	if o.err = shell(ctx, p.stop); o.err != nil {
		// It may have stopped the database all the same.
		_ = shell(context.WithoutCancel(ctx), p.start)
		o.err = fmt.Errorf("-outage-stop: %w", o.err)
		return o
	}
	// Pinged from now on, not from when the start command returns: some
	// return seconds after the database accepts connections.
	pingCtx, stopPinging := context.WithCancel(ctx)
	defer stopPinging()
	type ping struct {
		at  time.Time
		err error
	}
	pinged := make(chan ping, 1)
	go func() {
		at, err := waitForDatabase(pingCtx, dsn, p.down+2*commandTimeout)
		pinged <- ping{at, err}
	}()
	select {
	case <-time.After(time.Until(o.stopped.Add(p.down))):
	case <-ctx.Done():
	}
	// Start even when interrupted: the database is not the tool's to
	// leave stopped.
	if o.err = shell(context.WithoutCancel(ctx), p.start); o.err != nil {
		o.err = fmt.Errorf("-outage-start: %w", o.err)
		return o
	}
	back := <-pinged
	o.back, o.err = back.at, back.err
	return o
}

func shell(ctx context.Context, command string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", command).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", command, err, out)
	}
	return nil
}

// waitForDatabase pings the database until it answers, for at most
// wait, and returns when it first did.
func waitForDatabase(ctx context.Context, dsn string, wait time.Duration) (time.Time, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return time.Time{}, err
	}
	defer db.Close()
	db.SetMaxIdleConns(0) // each ping dials: a connection from before is gone
	var back time.Time
	testserver.Within(wait, func() bool {
		pingCtx, cancel := context.WithTimeout(ctx, time.Second)
		err = db.PingContext(pingCtx)
		cancel()
		if err == nil {
			back = time.Now()
		}
		return err == nil || ctx.Err() != nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("the database did not come back: %w", err)
	}
	return back, nil
}

// excuse marks the answers the outage explains as outcomeUnavailable:
// well-formed 503s with the contract's code, answered from the moment the
// database was stopped until recovery after it was back.
func (o outage) excuse(results []result, recovery time.Duration) {
	until := o.back.Add(recovery)
	for i, r := range results {
		if r.outcome == outcomeServer && r.status == 503 && r.code == unavailableCode &&
			!r.done.Before(o.stopped) && !r.done.After(until) {
			results[i].outcome = outcomeUnavailable
		}
	}
}

// report prints the outage's timeline: how long the database was away,
// how many answers said so, and how soon after it came back the last of
// them was given.
func (o outage) report(w io.Writer, results []result, start time.Time, recovery time.Duration) {
	var n int
	var last time.Time
	for _, r := range results {
		if r.outcome == outcomeUnavailable {
			n++
			if r.done.After(last) {
				last = r.done
			}
		}
	}
	fmt.Fprintf(w, "\ndatabase outage: stopped at +%s, answering again at +%s (away %s)\n",
		round(o.stopped.Sub(start)), round(o.back.Sub(start)), round(o.back.Sub(o.stopped)))
	switch {
	case n == 0:
		fmt.Fprintln(w, "no answer said the database was unavailable")
	case last.After(o.back):
		fmt.Fprintf(w, "%d answers were 503 %s; the last %s after the database was back (allowed: %s)\n",
			n, unavailableCode, round(last.Sub(o.back)), recovery)
	default:
		fmt.Fprintf(w, "%d answers were 503 %s, none after the database was back\n", n, unavailableCode)
	}
}
