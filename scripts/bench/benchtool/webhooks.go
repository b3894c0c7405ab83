package main

// benchtool webhooks measures webhook delivery from outside, against a
// running cloudplane:
//
//	benchtool webhooks seed --database DSN --accounts 100 --receiver 127.0.0.1:18191 --keys FILE
//	benchtool webhooks run --api URL --keys FILE --receiver 127.0.0.1:18191 [--duration 10s] [--label sqlite]
//
// seed makes the accounts, each with one endpoint subscribed to
// ticket.created and pointing at the receiver this tool serves (account i
// at /ok/i), plus one more account whose endpoint points at /hang, a
// receiver that holds every request until the run ends. Its key is the
// last line of FILE.
//
// run serves the receiver (204 at once on /ok/...), creates tickets
// through the API and prints markdown rows:
//   - deliveries/s to 1, 10 and 100 endpoints: tickets are created as
//     fast as 64 connections can, spread over the first N accounts, for
//     the duration (at most 10 s, within the attempt timeout) while the
//     receiver holds its requests, so the deliveries queue up; then it
//     answers again, and the figure is the backlog over the time until
//     every ticket's event has arrived: what the dispatcher sustains,
//     not what the API can create;
//   - answer-to-receipt p50/p99 at 200 and 400 tickets/s, open loop (each
//     POST sent at its scheduled time whatever the others do), over 10
//     accounts: the time from the POST's 200 arriving here to the
//     receiver getting that ticket's ticket.created;
//   - the same at 400/s while the hanging account gets 20 tickets/s of
//     its own, whose deliveries hold their workers until the timeout:
//     the others' latencies must not suffer (per-account fairness).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/webhooks/netguard"
)

func webhooksCmd(args []string) error {
	if len(args) < 1 {
		return errors.New("usage: benchtool webhooks seed|run [flags]")
	}
	switch args[0] {
	case "seed":
		return webhooksSeed(args[1:])
	case "run":
		return webhooksRun(args[1:])
	}
	return fmt.Errorf("unknown webhooks command %q", args[0])
}

func webhooksSeed(args []string) error {
	fs := flag.NewFlagSet("webhooks seed", flag.ContinueOnError)
	dsn := fs.String("database", "", "database to seed")
	accounts := fs.Int("accounts", 100, "accounts with a healthy endpoint")
	receiver := fs.String("receiver", "127.0.0.1:18191", "host:port the run's receiver listens on")
	keysFile := fs.String("keys", "", "file to write one API key per line to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := database.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true // the receiver is on loopback
	store := models.NewStore(db, models.WithConfig(cfg), models.WithWebhookGuard(netguard.Guard{}))
	defer store.Close()
	var keys []string
	for a := 1; a <= *accounts+1; a++ {
		u, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{
			Email: fmt.Sprintf("hook%04d@example.com", a), Password: "benchmark password"})
		if err != nil {
			return err
		}
		_, secret, err := store.CreateAPIKey(ctx, u.Actor(), models.CreateAPIKeyInput{Name: "bench"})
		if err != nil {
			return err
		}
		keys = append(keys, secret)
		url := fmt.Sprintf("http://%s/ok/%d", *receiver, a)
		if a == *accounts+1 {
			url = fmt.Sprintf("http://%s/hang", *receiver)
		}
		if _, _, err := store.SetWebhook(ctx, u.Actor(), models.SetWebhookInput{URL: url,
			EventTypes: []string{models.EventTicketCreated}}); err != nil {
			return err
		}
	}
	return os.WriteFile(*keysFile, []byte(strings.Join(keys, "\n")+"\n"), 0o600)
}

// hookReceiver records when each ticket's ticket.created first arrived.
type hookReceiver struct {
	mu       sync.Mutex
	arrived  map[string]time.Time
	received atomic.Int64 // requests, duplicates included
	hung     atomic.Int64 // requests held on /hang now
	hungPeak atomic.Int64 // the most held at once
	release  chan struct{}
	notify   chan struct{} // a new ticket arrived
	// paused, while set, holds requests to /ok until it is closed.
	paused atomic.Pointer[chan struct{}]
}

func (rc *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/hang" {
		n := rc.hung.Add(1)
		defer rc.hung.Add(-1)
		for p := rc.hungPeak.Load(); n > p && !rc.hungPeak.CompareAndSwap(p, n); p = rc.hungPeak.Load() {
		}
		select {
		case <-rc.release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if p := rc.paused.Load(); p != nil {
		select {
		case <-*p:
		case <-r.Context().Done():
			return
		}
	}
	at := time.Now()
	w.WriteHeader(http.StatusNoContent)
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	rc.received.Add(1)
	rc.mu.Lock()
	if _, dup := rc.arrived[env.Data.ID]; !dup {
		rc.arrived[env.Data.ID] = at
	}
	rc.mu.Unlock()
	select {
	case rc.notify <- struct{}{}:
	default:
	}
}

func (rc *hookReceiver) at(id string) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.arrived[id]
	return t, ok
}

// waitAll waits until every id has arrived, or until timeout; it returns
// the latest arrival and how many are missing.
func (rc *hookReceiver) waitAll(ids []string, timeout time.Duration) (last time.Time, missing int) {
	end := time.After(timeout)
	for {
		missing, last = 0, time.Time{}
		rc.mu.Lock()
		for _, id := range ids {
			if t, ok := rc.arrived[id]; ok {
				if t.After(last) {
					last = t
				}
			} else {
				missing++
			}
		}
		rc.mu.Unlock()
		if missing == 0 {
			return last, 0
		}
		select {
		case <-rc.notify:
		case <-time.After(50 * time.Millisecond):
		case <-end:
			return last, missing
		}
	}
}

type ticketClient struct {
	api    string
	client *http.Client
	fails  atomic.Int64
}

// fail counts a failed POST and shows the first few on stderr.
func (tc *ticketClient) fail(err error) {
	if tc.fails.Add(1) <= 3 {
		fmt.Fprintln(os.Stderr, "benchtool webhooks:", err)
	}
}

// create opens a ticket with key and returns its id and when the 200
// arrived.
func (tc *ticketClient) create(key string) (string, time.Time, error) {
	body := []byte(`{"subject":"webhook bench","description":"d","type":"incident","severity":"sev_3"}`)
	req, err := http.NewRequest(http.MethodPost, tc.api+"/api/v1/tickets", bytes.NewReader(body))
	if err != nil {
		return "", time.Time{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := tc.client.Do(req)
	if err != nil {
		tc.fail(err)
		return "", time.Time{}, err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	at := time.Now()
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("POST /api/v1/tickets: %d %s", res.StatusCode, data)
		tc.fail(err)
		return "", at, err
	}
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Data.ID == "" {
		err := fmt.Errorf("POST /api/v1/tickets answered %s", data)
		tc.fail(err)
		return "", at, err
	}
	return out.Data.ID, at, nil
}

func webhooksRun(args []string) error {
	fs := flag.NewFlagSet("webhooks run", flag.ContinueOnError)
	api := fs.String("api", "http://127.0.0.1:18192", "cloudplane's address")
	keysFile := fs.String("keys", "", "keys written by seed (the last is the hanging account's)")
	addr := fs.String("receiver", "127.0.0.1:18191", "address to serve the receiver on")
	duration := fs.Duration("duration", 10*time.Second, "length of each measurement")
	label := fs.String("label", "sqlite", "database name for the rows")
	endpointsList := fs.String("endpoints", "1,10,100", "endpoint counts for the throughput rows")
	ratesList := fs.String("rates", "200,400", "tickets per second for the latency rows")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw, err := os.ReadFile(*keysFile)
	if err != nil {
		return err
	}
	keys := strings.Fields(string(raw))
	if len(keys) < 2 {
		return errors.New("need at least two keys")
	}
	hangKey, keys := keys[len(keys)-1], keys[:len(keys)-1]

	rc := &hookReceiver{arrived: map[string]time.Time{}, release: make(chan struct{}), notify: make(chan struct{}, 1)}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(rc.release) }) }
	defer release()

	tc := &ticketClient{api: strings.TrimRight(*api, "/"), client: &http.Client{Timeout: 30 * time.Second,
		// Under the server's 256 connections per address: a burst waits
		// for a connection here instead of being refused.
		Transport: &http.Transport{MaxConnsPerHost: 200, MaxIdleConns: 200, MaxIdleConnsPerHost: 200,
			IdleConnTimeout: time.Minute}}}

	for _, n := range parseInts(*endpointsList) {
		if n > len(keys) {
			return fmt.Errorf("%d endpoints asked for, %d seeded", n, len(keys))
		}
		r := throughput(tc, rc, keys[:n], *duration)
		fmt.Printf("| %s | deliveries/s to %d endpoint(s), draining a backlog | %.0f | backlog %d tickets (created at %.0f/s), %d POST failures, %d missing | >= 1000 (100 endpoints) |\n",
			*label, n, r.delivered, r.backlog, r.created, r.fails, r.missing)
	}
	ten := keys[:min(10, len(keys))]
	for _, rate := range parseInts(*ratesList) {
		r := openLoop(tc, rc, ten, "", rate, 0, *duration)
		fmt.Printf("| %s | answer-to-receipt at %d tickets/s, %d accounts | p50 %.2f ms, p99 %.2f ms | %d tickets, %d POST failures, %d missing | p99 <= 100 ms (400/s) |\n",
			*label, rate, len(ten), r.p50, r.p99, r.n, r.fails, r.missing)
	}
	rates := parseInts(*ratesList)
	top := rates[len(rates)-1]
	r := openLoop(tc, rc, ten, hangKey, top, 20, *duration)
	fmt.Printf("| %s | same at %d tickets/s, an 11th account's receiver hanging (20 tickets/s to it) | p50 %.2f ms, p99 %.2f ms | %d tickets, %d POST failures, %d missing, at most %d requests held at once by the hanging receiver (its endpoint's cap) | others' p99 <= 100 ms |\n",
		*label, top, r.p50, r.p99, r.n, r.fails, r.missing, rc.hungPeak.Load())
	release()
	return nil
}

func parseInts(s string) []int {
	var out []int
	for _, p := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(p), &n); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

type throughputResult struct {
	created, delivered float64
	backlog            int
	fails              int64
	missing            int
}

// throughput creates tickets over keys' accounts from 64 connections for
// d (at most 10 s) while the receiver holds its requests, then lets it
// answer and times how long the backlog takes to arrive.
func throughput(tc *ticketClient, rc *hookReceiver, keys []string, d time.Duration) throughputResult {
	failsBefore := tc.fails.Load()
	pause := make(chan struct{})
	rc.paused.Store(&pause)
	var mu sync.Mutex
	var ids []string
	start := time.Now()
	stop := start.Add(min(d, 10*time.Second))
	var wg sync.WaitGroup
	for c := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(stop); i += 64 {
				id, _, err := tc.create(keys[i%len(keys)])
				if err == nil {
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	posted := time.Now()
	rc.paused.Store(nil)
	close(pause)
	last, missing := rc.waitAll(ids, 2*time.Minute)
	if last.Before(posted) {
		last = posted
	}
	return throughputResult{
		created:   float64(len(ids)) / posted.Sub(start).Seconds(),
		delivered: float64(len(ids)-missing) / last.Sub(posted).Seconds(),
		backlog:   len(ids), fails: tc.fails.Load() - failsBefore, missing: missing,
	}
}

type latencyResult struct {
	p50, p99 float64
	n        int
	fails    int64
	missing  int
}

// openLoop sends rate tickets per second over keys' accounts for d, each
// at its scheduled time, and hangRate per second for hangKey's account
// besides; it reports the answer-to-receipt latencies of keys' tickets.
// A receipt before the answer (the dispatcher is woken at the commit,
// before the answer is written) counts as 0.
func openLoop(tc *ticketClient, rc *hookReceiver, keys []string, hangKey string, rate, hangRate int, d time.Duration) latencyResult {
	failsBefore := tc.fails.Load()
	type sent struct {
		id string
		at time.Time
	}
	var mu sync.Mutex
	var got []sent
	var wg sync.WaitGroup
	fire := func(key string, measured bool) {
		defer wg.Done()
		id, at, err := tc.create(key)
		if err == nil && measured {
			mu.Lock()
			got = append(got, sent{id, at})
			mu.Unlock()
		}
	}
	schedule := func(n int, every time.Duration, key func(int) string, measured bool) {
		defer wg.Done()
		start := time.Now()
		for i := range n {
			if wait := time.Until(start.Add(time.Duration(i) * every)); wait > 0 {
				time.Sleep(wait)
			}
			wg.Add(1)
			go fire(key(i), measured)
		}
	}
	wg.Add(1)
	go schedule(int(float64(rate)*d.Seconds()), time.Second/time.Duration(rate),
		func(i int) string { return keys[i%len(keys)] }, true)
	if hangKey != "" && hangRate > 0 {
		wg.Add(1)
		go schedule(int(float64(hangRate)*d.Seconds()), time.Second/time.Duration(hangRate),
			func(int) string { return hangKey }, false)
	}
	wg.Wait()
	ids := make([]string, len(got))
	for i, s := range got {
		ids[i] = s.id
	}
	_, missing := rc.waitAll(ids, time.Minute)
	var lat []float64
	for _, s := range got {
		if at, ok := rc.at(s.id); ok {
			lat = append(lat, max(0, float64(at.Sub(s.at).Microseconds())/1000))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(p*float64(len(lat)-1))]
	}
	return latencyResult{p50: pct(0.50), p99: pct(0.99), n: len(got), fails: tc.fails.Load() - failsBefore, missing: missing}
}
