// Command loadtest starts a fresh cloudplane server on a fresh database,
// puts a mixed API workload from many clients on it, and fails when the
// server answers 5xx, does not answer in time, answers something that is
// not the contract's JSON, or does not answer normally afterwards.
//
//	go run ./cmd/loadtest                                  # SQLite, 64 clients, 20 s
//	go run ./cmd/loadtest -database postgres://postgres@127.0.0.1:5432/test?sslmode=disable
//	go run ./cmd/loadtest -clients 200 -duration 60s -max-p99 250ms
//	go run ./cmd/loadtest -clients 200 -duration 10m -soak -min-last-first 0.9   # throughput must not decay
//	go run ./cmd/loadtest -database postgres://... -outage-stop 'pg_ctlcluster 15 main stop -m fast' \
//		-outage-start 'pg_ctlcluster 15 main start'   # restart PostgreSQL under the load
//	go run ./cmd/loadtest -scenario signin                 # guessers and floods against the dashboard's sign-in
//	go run ./cmd/loadtest -scenario uploads                # attachment uploads' memory, WAL and latency bounds
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"cloudplane/handlers/testserver"
)

type options struct {
	clients, perAccount int
	hangingWebhooks     int
	duration, timeout   time.Duration
	database, binary    string
	debugAddr           string
	cpuProfile          string
	serverFlags         string
	bootTime            time.Duration
	seed                uint64
	keep                bool
	soak                bool
	window              time.Duration
	scenario            string
	forged              int
	uploadPhases        string
	limits              limits
	outage              outagePlan
}

func main() {
	var o options
	flag.IntVar(&o.clients, "clients", 64, "clients sending requests at once")
	flag.IntVar(&o.perAccount, "clients-per-account", 4, "clients sharing one account (and its quotas and rows)")
	flag.IntVar(&o.hangingWebhooks, "hanging-webhooks", 0, "accounts whose webhook receiver never answers (the others answer 204 at once)")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "how long the clients start new requests")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one request may take before it counts as unanswered")
	flag.StringVar(&o.database, "database", "", "a postgres:// URL of a server to create (and drop) a fresh database on; SQLite in a temporary file when empty")
	flag.StringVar(&o.binary, "binary", "", "the cloudplane binary to start; built from this module when empty")
	flag.DurationVar(&o.bootTime, "instance-boot-time", time.Second, "the server's simulated instance boot time")
	flag.StringVar(&o.debugAddr, "debug-addr", "", "passed to the server as --debug-addr, to profile it under the load (e.g. 127.0.0.1:6060)")
	flag.StringVar(&o.serverFlags, "server-flags", "", "more flags for the server, separated by spaces (e.g. \"--max-in-flight 64\")")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file, to tell its cost from the server's")
	flag.Uint64Var(&o.seed, "seed", 0, "seed of the random workload (0: a new one, printed)")
	flag.StringVar(&o.scenario, "scenario", "api", "api: the mixed API workload; signin: password guessers and floods against the dashboard's sign-in (signin.go); uploads: attachment uploads' bounds (uploads.go)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work folder (server log, SQLite file) and print where it is")
	flag.DurationVar(&o.limits.maxP99, "max-p99", 0, "fail when an operation's p99 latency is above this (0: off)")
	flag.Float64Var(&o.limits.minLastFirst, "min-last-first", 0, "fail when the last window's good answers are fewer than this share of the first's, e.g. 0.9 (0: off)")
	flag.DurationVar(&o.window, "window", defaultWindow, "width of the windows good answers are counted in; the report compares the last whole one with the first")
	flag.BoolVar(&o.soak, "soak", false, "print each window's good answers as it closes, for long runs (e.g. -duration 10m)")
	flag.IntVar(&o.limits.maxConflicts, "max-conflicts", -1, "fail when more requests than this answer 409 (-1: off)")
	flag.StringVar(&o.outage.stop, "outage-stop", "", "a shell command that stops the PostgreSQL server during the load (with -outage-start)")
	flag.StringVar(&o.outage.start, "outage-start", "", "a shell command that starts it again")
	flag.DurationVar(&o.outage.at, "outage-at", 0, "when to stop the database, from the start of the load (0: a third of -duration)")
	flag.DurationVar(&o.outage.down, "outage-for", 5*time.Second, "how long the database stays stopped")
	flag.DurationVar(&o.outage.recovery, "recovery", 5*time.Second, "how soon after the database answers again every request must succeed")
	flag.IntVar(&o.forged, "forged", 200, "uploads scenario: forged 25 MiB announcements held open at once")
	flag.StringVar(&o.uploadPhases, "upload-phases", "forged,valid,downloads,hammer", "uploads scenario: the phases to run, comma-separated")
	flag.Parse()
	if o.outage.at == 0 {
		o.outage.at = o.duration / 3
	}
	if msg := o.invalid(); msg != "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "loadtest: "+cmp.Or(msg, "want no arguments, only flags"))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile, err := profileCPU(o.cpuProfile)
	if err == nil {
		err = run(ctx, o, os.Stdout)
		stopProfile()
	}
	stop()
	var failed errFailed
	switch {
	case err == nil:
	case errors.As(err, &failed):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
}

// invalid says what is wrong with o's flags, or "" when nothing is.
func (o options) invalid() string {
	switch {
	case o.scenario != "" && o.scenario != "api" && o.scenario != "signin" && o.scenario != "uploads": // "" is api
		return "-scenario: want api, signin or uploads"
	case o.clients < 1 || o.perAccount < 1 || o.duration <= 0 || o.timeout <= 0:
		return "want -clients and -clients-per-account >= 1, and a positive -duration and -timeout"
	case o.window <= 0 || o.window > o.duration:
		return "-window must be positive and no longer than -duration"
	case (o.outage.stop == "") != (o.outage.start == ""):
		return "-outage-stop and -outage-start go together"
	case o.outage.planned() && o.database == "":
		return "an outage needs a PostgreSQL server (-database)"
	case o.outage.planned() && (o.outage.at < 0 || o.outage.down < 0 || o.outage.recovery < 0 ||
		o.outage.at+o.outage.down >= o.duration):
		return "the outage (-outage-at plus -outage-for) must end before -duration does"
	}
	return ""
}

// errFailed is a run that happened and failed its checks; the report
// has been printed.
type errFailed struct{}

func (errFailed) Error() string { return "load test failed" }

// run does one load test and cleans up after it whatever happens: the
// server is stopped before its database is dropped and its folder removed.
func run(ctx context.Context, o options, out io.Writer) (err error) {
	work, err := os.MkdirTemp("", "cloudplane-loadtest-")
	if err != nil {
		return err
	}
	defer func() {
		if o.keep {
			fmt.Fprintln(out, "work folder kept:", work)
			return
		}
		_ = os.RemoveAll(work)
	}()
	dsn, drop, err := freshDatabase(work, o.database)
	if err != nil {
		return err
	}
	defer func() {
		if dropErr := drop(); dropErr != nil {
			err = errors.Join(err, dropErr)
		}
	}()
	bin := o.binary
	if bin == "" {
		// Built once per state of the source, as the tests' binary is.
		if bin, err = testserver.Build(); err != nil {
			return err
		}
	}
	accounts := (o.clients + o.perAccount - 1) / o.perAccount
	args := serverArgs(accounts, o.bootTime)
	if o.scenario == "uploads" {
		accounts, args = uploadAccounts(), uploadServerArgs()
	}
	if o.debugAddr != "" {
		args = append(args, "--debug-addr", o.debugAddr)
	}
	args = append(args, strings.Fields(o.serverFlags)...)
	srv, err := startServer(bin, work+"/server.log", dsn, args, time.Minute)
	if srv != nil {
		// After a load the report has stopped the server and judged how;
		// this stops it when the run ends early.
		defer srv.stop(stopGrace)
	}
	if err != nil {
		return err
	}
	if o.scenario == "uploads" {
		fmt.Fprintf(out, "server %s on %s with its default flags, %d accounts, uploads scenario\n", srv.base, backend(o.database), accounts)
	} else {
		fmt.Fprintf(out, "server %s on %s, %d clients on %d accounts for %s, timeout %s\n",
			srv.base, backend(o.database), o.clients, accounts, o.duration, o.timeout)
	}
	if o.scenario == "signin" {
		return runSignIn(ctx, o, srv, bin, dsn, out)
	}
	receiver, hanging := newWebhookReceiver(false), newWebhookReceiver(true)
	defer receiver.Close()
	defer hanging.Close()
	keys, err := createAccounts(ctx, bin, dsn, accounts, func(account int) string {
		if account < o.hangingWebhooks {
			return hanging.URL
		}
		return receiver.URL
	})
	if err != nil {
		return err
	}
	if o.scenario == "uploads" {
		return runUploads(ctx, o, srv, dsn, keys, out)
	}
	return loadAndReport(ctx, o, srv, dsn, keys, receiver, out)
}

// stopGrace is how long the server may drain after SIGTERM: a little
// more than its own 20 s shutdown bound, so a healthy server is never
// killed.
const stopGrace = 25 * time.Second

func backend(database string) string {
	if database == "" {
		return "SQLite"
	}
	return "PostgreSQL"
}

// serverArgs starts the server as the load needs it: no rate limits, a
// short boot, capacity for about two instances per account on each
// launch target, so launches succeed and sometimes meet a full region,
// and webhooks allowed to the run's receiver on loopback.
func serverArgs(accounts int, boot time.Duration) []string {
	capacity := ""
	for i, t := range launchTargets {
		if i > 0 {
			capacity += ","
		}
		capacity += fmt.Sprintf("%s:%s=%d", t[0], t[1], 2*accounts)
	}
	return []string{"--rate-limit", "off", "--launch-rate-limit", "off",
		"--instance-boot-time", boot.String(), "--instance-capacity", capacity, "--log-level", "info",
		"--webhook-allow-private"}
}

// profileCPU starts Go's CPU profiler writing to path, unless path is "".
func profileCPU(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
