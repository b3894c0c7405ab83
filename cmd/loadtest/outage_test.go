package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloudplane/models/modelstest"
)

// Only a well-formed 503 provider/internal-unavailable between the stop
// and the end of recovery is excused; everything else keeps its verdict.
func TestOutageExcusesOnlyUnavailableAnswersInItsWindow(t *testing.T) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	o := outage{stopped: at(10), back: at(17)}
	unavailable := func(done time.Time) result {
		return result{op: "list", status: 503, code: unavailableCode, outcome: outcomeServer, done: done}
	}
	results := []result{
		unavailable(at(9.9)),  // before the stop: the server's own fault
		unavailable(at(10)),   // from the stop on
		unavailable(at(21.9)), // within 5 s of the database's return
		unavailable(at(22.1)), // after recovery
		{op: "list", status: 500, code: "global/internal-error", outcome: outcomeServer, done: at(12)},
		{op: "list", status: 503, code: unavailableCode, outcome: outcomeBadBody, done: at(12)}, // no Retry-After
		{op: "list", outcome: outcomeTimeout, done: at(12)},
		{op: "list", status: 200, outcome: outcomeOK, done: at(18)},
	}
	o.excuse(results, 5*time.Second)
	want := []outcome{outcomeServer, outcomeUnavailable, outcomeUnavailable, outcomeServer,
		outcomeServer, outcomeBadBody, outcomeTimeout, outcomeOK}
	for i, w := range want {
		if results[i].outcome != w {
			t.Errorf("result %d (%+v): outcome %d, want %d", i, results[i], results[i].outcome, w)
		}
	}
	if why := verdict(summarize(results), nil, limits{maxConflicts: -1}); len(why) != 1 || !strings.Contains(why[0], "5 of 8 requests failed") {
		t.Errorf("verdict = %q, want the 5 unexcused failures", why)
	}
	if got := timeline(results, start, 5*time.Second, 5); got[3] != 1 || got[2] != 0 {
		t.Errorf("timeline = %v: excused answers are not answered well", got)
	}

	var b strings.Builder
	o.report(&b, results, start, 5*time.Second)
	for _, w := range []string{"stopped at +10s, answering again at +17s (away 7s)",
		"2 answers were 503 provider/internal-unavailable; the last 4.9s after the database was back"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, b.String())
		}
	}
}

func TestOutageFlags(t *testing.T) {
	base := options{clients: 64, perAccount: 4, duration: 30 * time.Second, timeout: 10 * time.Second, window: defaultWindow}
	plan := outagePlan{stop: "stop", start: "start", at: 10 * time.Second, down: 5 * time.Second, recovery: 5 * time.Second}
	for _, tc := range []struct {
		name   string
		change func(o *options)
		want   string
	}{
		{"no outage", func(o *options) {}, ""},
		{"outage on PostgreSQL", func(o *options) { o.outage, o.database = plan, "postgres://x" }, ""},
		{"on SQLite", func(o *options) { o.outage = plan }, "needs a PostgreSQL server"},
		{"stop without start", func(o *options) { o.outage, o.database = plan, "postgres://x"; o.outage.start = "" }, "go together"},
		{"longer than the load", func(o *options) {
			o.outage, o.database = plan, "postgres://x"
			o.outage.down = 20 * time.Second
		}, "must end before -duration"},
	} {
		o := base
		tc.change(&o)
		if got := o.invalid(); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: invalid() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// takeDatabaseAway runs its commands in order, on time, and pings the
// database from the stop on; here the commands only write down when they
// ran, so the database answers at once.
func TestTakeDatabaseAwayRunsItsCommandsInOrder(t *testing.T) {
	if modelstest.Backend() != "postgres" {
		t.Skip("pings a PostgreSQL server: set " + modelstest.PostgresEnv)
	}
	log := filepath.Join(t.TempDir(), "log")
	plan := outagePlan{stop: "echo stop $(date +%s%N) >> " + log, start: "echo start $(date +%s%N) >> " + log,
		at: 100 * time.Millisecond, down: 200 * time.Millisecond}
	start := time.Now()
	o := takeDatabaseAway(context.Background(), plan, modelstest.DSN(t), start)
	if o.err != nil {
		t.Fatal(o.err)
	}
	got, _ := os.ReadFile(log)
	var stopNs, startNs int64
	if n, _ := fmt.Sscanf(string(got), "stop %d\nstart %d\n", &stopNs, &startNs); n != 2 {
		t.Fatalf("commands ran as %q", got)
	}
	if ran := time.Unix(0, stopNs); ran.Sub(start) < plan.at || o.stopped.Sub(start) < plan.at {
		t.Errorf("stopped at +%s: earlier than planned", ran.Sub(start))
	}
	if down := time.Unix(0, startNs).Sub(o.stopped); startNs < stopNs || down < plan.down {
		t.Errorf("started again %s after the stop began, want %s", down, plan.down)
	}
	if o.back.Before(o.stopped) {
		t.Errorf("back at +%s, before the stop at +%s", o.back.Sub(start), o.stopped.Sub(start))
	}

	// A stop command that fails may have stopped the database all the
	// same: the start command still runs.
	started := filepath.Join(t.TempDir(), "started")
	plan.stop, plan.start = "exit 3", "touch "+started
	if o := takeDatabaseAway(context.Background(), plan, modelstest.DSN(t), time.Now()); o.err == nil ||
		!strings.Contains(o.err.Error(), "-outage-stop") {
		t.Errorf("a failing stop command: %v", o.err)
	}
	if _, err := os.Stat(started); err != nil {
		t.Errorf("the start command did not run after a failed stop: %v", err)
	}
}
