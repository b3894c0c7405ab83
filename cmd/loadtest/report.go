package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// afterTimeout bounds each check made once the load has stopped.
const afterTimeout = 5 * time.Second

// maxFailureGroups bounds the failure kinds the report lists.
const maxFailureGroups = 15

// loadAndReport gives every account its launch key, runs the clients,
// checks the server afterwards, stops it, and prints the report. It
// returns errFailed when the run fails its checks.
func loadAndReport(ctx context.Context, o options, srv *server, dsn string, keys []string, receiver *webhookReceiver, out io.Writer) error {
	transport := newTransport(o.clients)
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport}
	for _, key := range keys {
		c := &client{http: hc, base: srv.base, key: key, timeout: o.timeout}
		if !c.do(ctx, "setup", "POST", "/api/v1/ssh-keys", map[string]string{"name": bootKey}, nil) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("creating the launch SSH key failed: %s", c.results[0].detail)
		}
	}
	seed := o.seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	fmt.Fprintf(out, "load for %s (seed %d)\n", o.duration, seed)
	start := time.Now()
	outageC := make(chan outage, 1)
	if o.outage.planned() {
		go func() { outageC <- takeDatabaseAway(ctx, o.outage, dsn, start) }()
	}
	windows := newWindowed(start, o.window, o.duration)
	stopSampling := make(chan struct{})
	defer close(stopSampling)
	go windows.sampleCPU(srv.Cmd.Process.Pid, stopSampling)
	if o.soak {
		followCtx, stopFollowing := context.WithCancel(ctx)
		defer stopFollowing()
		go windows.follow(followCtx, out)
	}
	results := runClients(ctx, o, hc, srv.base, keys, seed, windows)
	elapsed := time.Since(start)
	var away *outage
	if o.outage.planned() {
		away = new(<-outageC)
		if away.err == nil {
			away.excuse(results, o.outage.recovery)
		}
	}
	interrupted := ctx.Err() != nil
	transport.CloseIdleConnections()

	var afterwards []string
	if away != nil && away.err != nil {
		afterwards = append(afterwards, away.err.Error())
	}
	if !interrupted {
		afterwards = append(afterwards, checkAfter(srv.base, keys[0])...)
	}
	afterwards = append(afterwards, srv.stop(stopGrace)...)
	claimFailures := srv.claimFailures.Load()
	if claimFailures > 0 && away == nil {
		// With the database taken away on purpose, claims fail until it
		// is back; under an ordinary load none may.
		afterwards = append(afterwards, fmt.Sprintf("the server logged %d failed webhook claims", claimFailures))
	}

	rows := summarize(results)
	fmt.Fprintln(out)
	printTable(out, rows)
	fmt.Fprintf(out, "\n%d requests in %s, %.0f/s\n", len(results), elapsed.Round(time.Millisecond),
		float64(len(results))/elapsed.Seconds())
	if away != nil {
		// Per second, to see how soon after the outage service is back.
		steps := int((elapsed + time.Second - 1) / time.Second)
		fmt.Fprintf(out, "answered well per %s: %v\n", time.Second, timeline(results, start, time.Second, steps))
	}
	perWindow := windows.snapshot()
	ratio := lastFirst(perWindow)
	fmt.Fprintf(out, "answered well per %s: %v\n", o.window, perWindow)
	fmt.Fprintf(out, "last/first window: %.2f\n", ratio)
	windows.printCosts(out)
	fmt.Fprintf(out, "webhooks received: %d; failed claims logged: %d\n", receiver.received.Load(), claimFailures)
	if away != nil && away.err == nil {
		away.report(out, results, start, o.outage.recovery)
	}
	groups := failures(results)
	if len(groups) > 0 {
		fmt.Fprintln(out, "\nfailures:")
		for i, g := range groups {
			if i == maxFailureGroups {
				fmt.Fprintf(out, "  … and %d more kinds\n", len(groups)-i)
				break
			}
			fmt.Fprintln(out, " ", g)
		}
	}
	if len(rows) > 0 {
		// One line for scripts (scripts/bench/loadtest.sh) to read.
		all := rows[len(rows)-1]
		fmt.Fprintf(out, "summary: failed=%d p99=%s first=%d last=%d last/first=%.2f\n",
			all.failed, round(all.p99), perWindow[0], perWindow[len(perWindow)-1], ratio)
	}
	why := verdict(rows, afterwards, o.limits)
	if o.limits.minLastFirst > 0 && ratio < o.limits.minLastFirst {
		why = append(why, fmt.Sprintf("the last window answered %.2f of the first's good answers, under -min-last-first %.2f",
			ratio, o.limits.minLastFirst))
	}
	if interrupted {
		why = append(why, "interrupted")
	}
	if len(why) == 0 {
		fmt.Fprintln(out, "\nPASS")
		return nil
	}
	fmt.Fprintln(out, "\nFAIL:")
	for _, w := range why {
		fmt.Fprintln(out, "  "+w)
	}
	fmt.Fprintf(out, "\nlast lines of the server's log:\n%s\n", srv.logTail())
	return errFailed{}
}

// runClients runs o.clients workers, clientsPerAccount to an account, and
// returns every request they recorded.
func runClients(ctx context.Context, o options, hc *http.Client, base string, keys []string, seed uint64, windows *windowed) []result {
	end := time.Now().Add(o.duration)
	workers := make([]*worker, o.clients)
	var wg sync.WaitGroup
	for i := range workers {
		w := &worker{client: &client{http: hc, base: base, key: keys[i/o.perAccount], timeout: o.timeout, windows: windows},
			id: i + 1, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		workers[i] = w
		wg.Go(func() { w.loop(ctx, end) })
	}
	wg.Wait()
	var all []result
	for _, w := range workers {
		all = append(all, w.results...)
	}
	return all
}

// checkAfter asks a server that just carried the load whether it still
// answers normally: /healthz and a plain list, each within afterTimeout,
// on new connections.
func checkAfter(base, key string) []string {
	var problems []string
	for _, c := range []struct{ path, key string }{{"/healthz", ""}, {"/api/v1/filesystems", key}} {
		status, err := get(context.Background(), base+c.path, c.key, afterTimeout)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("after the load, GET %s: %v", c.path, err))
		case status != http.StatusOK:
			problems = append(problems, fmt.Sprintf("after the load, GET %s answered %d, not 200", c.path, status))
		}
	}
	return problems
}

// get makes one GET on a connection of its own, bounded by timeout.
func get(ctx context.Context, url, key string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	return resp.StatusCode, nil
}
