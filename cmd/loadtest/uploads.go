package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// The uploads scenario (-scenario uploads) measures what attachment
// uploads cost the server, against the bounds of issue 18:
//
//  1. forged: connections announce 25 MiB uploads to URLs with no valid
//     signature and send one byte; the server's RSS must stay within
//     uploadBounds.forgedRSS of idle, and every one be refused (403) at
//     once, without the server waiting for the body;
//  2. valid: 50 real 25 MiB uploads at once; the RSS must stay under
//     uploadBounds.validRSS and every one be stored;
//  3. downloads: one 25 MiB attachment downloaded by concurrentDownloads
//     clients at once; the RSS must stay under uploadBounds.downloadRSS
//     and every one read back whole;
//  4. hammer: four clients loop 25 MiB PUTs to four upload URLs of one
//     account while other accounts create filesystems; those creates'
//     p99, the WAL's size and the RSS are bounded.
//
// The server runs with its default flags (rate limits on), on SQLite
// unless -database names PostgreSQL.

const (
	uploadSize       = 25 << 20
	validUploads     = 50
	uploadsPerValid  = 2 // accounts' burst of 5 covers a ticket, 2 initiates and 2 PUTs
	hammerClients    = 4
	victimAccounts   = 8
	uploadTimeout    = 3 * time.Minute
	forgedAnswerWait = 3 * time.Second
	// concurrentDownloads is the admission gate's default on 2 CPUs.
	concurrentDownloads = 32
)

// uploadBounds are the scenario's limits; a figure past one fails the run.
type uploadBounds struct {
	forgedRSS   int64         // growth over idle during the forged phase
	validRSS    int64         // during the 50 valid uploads
	downloadRSS int64         // during the concurrent downloads
	hammerRSS   int64         // during the hammer
	walBytes    int64         // the SQLite WAL's largest size
	victimP99   time.Duration // other accounts' filesystem creates
	hammerBytes int64         // what the hammer got the server to take
}

var defaultUploadBounds = uploadBounds{forgedRSS: 50 << 20, validRSS: 256 << 20, downloadRSS: 256 << 20, hammerRSS: 256 << 20,
	walBytes: 128 << 20, victimP99: 250 * time.Millisecond, hammerBytes: 256 << 20}

// uploadAccounts is how many accounts the scenario needs: the valid
// uploads', the hammer's and the victims'.
func uploadAccounts() int { return validUploads/uploadsPerValid + 1 + victimAccounts + 1 }

// uploadServerArgs are the server's flags for the scenario: its defaults.
func uploadServerArgs() []string { return nil }

type uploadRun struct {
	srv    *server
	dsn    string
	hc     *http.Client
	forged int
	bounds uploadBounds
	out    io.Writer
	failed []string
}

func runUploads(ctx context.Context, o options, srv *server, dsn string, keys []string, out io.Writer) error {
	u := &uploadRun{srv: srv, dsn: dsn, forged: o.forged, bounds: defaultUploadBounds, out: out,
		hc: &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 64}}}
	valid, hammer, victims := keys[:validUploads/uploadsPerValid], keys[len(keys)-2-victimAccounts], keys[len(keys)-1-victimAccounts:len(keys)-1]
	downloader := keys[len(keys)-1]
	phases := strings.Split(o.uploadPhases, ",")
	time.Sleep(time.Second) // let the start's allocations settle
	idle := u.rss()
	fmt.Fprintf(out, "idle RSS %s\n", mib(idle))

	for _, phase := range []struct {
		name string
		run  func() error
	}{
		{"forged", func() error { return u.forgedPhase(ctx, idle) }},
		{"valid", func() error { return u.validPhase(ctx, valid) }},
		{"downloads", func() error { return u.downloadPhase(ctx, downloader) }},
		{"hammer", func() error { return u.hammerPhase(ctx, hammer, victims) }},
	} {
		if !slices.Contains(phases, phase.name) {
			continue
		}
		if err := phase.run(); err != nil {
			return err
		}
	}
	if hwm := u.status("VmHWM"); hwm > 0 {
		fmt.Fprintf(out, "server's peak RSS over the run (VmHWM) %s\n", mib(hwm))
	}
	if problems := srv.stop(stopGrace); len(problems) > 0 {
		u.failed = append(u.failed, problems...)
	}
	if len(u.failed) > 0 {
		fmt.Fprintln(out, "FAIL:\n  "+strings.Join(u.failed, "\n  "))
		return errFailed{}
	}
	fmt.Fprintln(out, "PASS")
	return nil
}

func (u *uploadRun) fail(format string, args ...any) {
	u.failed = append(u.failed, fmt.Sprintf(format, args...))
}

// forgedPhase opens u.forged connections that each announce a 25 MiB
// upload to a forged URL and send one byte, then waits for their answers.
func (u *uploadRun) forgedPhase(ctx context.Context, idle int64) error {
	host := strings.TrimPrefix(u.srv.base, "http://")
	peak := u.watchRSS()
	expires := time.Now().Add(time.Hour).Unix()
	var answered403, other atomic.Int64
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range u.forged {
		c, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			return fmt.Errorf("forged connection %d: %w", i, err)
		}
		conns = append(conns, c)
		head := fmt.Sprintf("PUT /attachments/%032x?expires=%d&signature=00&size=%d HTTP/1.1\r\nHost: %s\r\n"+
			"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\nx", i+1, expires, uploadSize, host, uploadSize)
		if _, err := io.WriteString(c, head); err != nil {
			return fmt.Errorf("forged connection %d: %w", i, err)
		}
		wg.Go(func() {
			_ = c.SetReadDeadline(start.Add(forgedAnswerWait + 2*time.Second))
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			switch {
			case err != nil:
			case res.StatusCode == http.StatusForbidden && time.Since(start) < forgedAnswerWait:
				answered403.Add(1)
			default:
				other.Add(1)
			}
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // what the server allocated for them, seen while they are open
	grown := peak() - idle
	fmt.Fprintf(u.out, "forged: %d announcements of 25 MiB: %d answered 403 within %s, %d otherwise, RSS peak +%s over idle (bound +%s)\n",
		u.forged, answered403.Load(), forgedAnswerWait, other.Load(), mib(grown), mib(u.bounds.forgedRSS))
	if grown > u.bounds.forgedRSS {
		u.fail("forged uploads grew the RSS by %s, more than %s", mib(grown), mib(u.bounds.forgedRSS))
	}
	if int(answered403.Load()) != u.forged {
		u.fail("%d of %d forged uploads were not refused (403) within %s", u.forged-int(answered403.Load()), u.forged, forgedAnswerWait)
	}
	return ctx.Err()
}

// upload is one initiated attachment.
type upload struct {
	key, ticket, id, url string
}

// initiate opens a ticket on the account of key and initiates n uploads.
func (u *uploadRun) initiate(ctx context.Context, key string, n int) ([]upload, error) {
	var ticket struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := u.call(ctx, key, "POST", "/api/v1/tickets", map[string]any{"subject": "Uploads", "description": "Load test.",
		"type": "service_request"}, &ticket); err != nil {
		return nil, err
	}
	out := make([]upload, n)
	for i := range out {
		var init struct {
			Data struct {
				AttachmentID string `json:"attachment_id"`
				UploadURL    string `json:"upload_url"`
			} `json:"data"`
		}
		if err := u.call(ctx, key, "POST", "/api/v1/tickets/"+ticket.Data.ID+"/attachments", map[string]any{
			"filename": fmt.Sprintf("dump-%d.bin", i), "content_type": "application/octet-stream", "size_bytes": uploadSize}, &init); err != nil {
			return nil, err
		}
		out[i] = upload{key: key, ticket: ticket.Data.ID, id: init.Data.AttachmentID, url: init.Data.UploadURL}
	}
	return out, nil
}

// validPhase sends 50 real uploads at once, then completes them.
func (u *uploadRun) validPhase(ctx context.Context, keys []string) error {
	var all []upload
	for _, key := range keys {
		ups, err := u.initiate(ctx, key, uploadsPerValid)
		if err != nil {
			return err
		}
		all = append(all, ups...)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), uploadSize/16)
	peak := u.watchRSS()
	start := time.Now()
	var waited atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for _, up := range all {
		g.Go(func() error {
			for {
				status, header, raw, err := u.put(gctx, up.url, body)
				if err != nil {
					return fmt.Errorf("upload %s: %w", up.id, err)
				}
				switch status {
				case http.StatusOK:
					return nil
				case http.StatusServiceUnavailable, http.StatusTooManyRequests:
					waited.Add(1)
					if err := sleepCtx(gctx, retryAfter(header)); err != nil {
						return err
					}
				default:
					return fmt.Errorf("upload %s: status %d: %s", up.id, status, excerpt(raw))
				}
			}
		})
	}
	err := g.Wait()
	took := time.Since(start)
	top := peak()
	if err != nil {
		u.fail("valid uploads: %v", err)
	}
	for _, up := range all {
		var done struct {
			Data struct {
				UploadStatus string `json:"upload_status"`
			} `json:"data"`
		}
		if err := u.call(ctx, up.key, "POST", "/api/v1/tickets/"+up.ticket+"/attachments/"+up.id+"/complete", nil, &done); err != nil {
			u.fail("complete %s: %v", up.id, err)
			break
		}
	}
	fmt.Fprintf(u.out, "valid: %d uploads of 25 MiB at once in %s (%d answers to wait and retry), RSS peak %s (bound %s)\n",
		len(all), took.Round(time.Millisecond), waited.Load(), mib(top), mib(u.bounds.validRSS))
	if top > u.bounds.validRSS {
		u.fail("50 valid uploads took the RSS to %s, more than %s", mib(top), mib(u.bounds.validRSS))
	}
	return ctx.Err()
}

// downloadPhase uploads one 25 MiB attachment and downloads it with
// concurrentDownloads clients at once, each reading it whole.
func (u *uploadRun) downloadPhase(ctx context.Context, key string) error {
	ups, err := u.initiate(ctx, key, 1)
	if err != nil {
		return err
	}
	up := ups[0]
	body := bytes.Repeat([]byte("0123456789abcdef"), uploadSize/16)
	if status, _, raw, err := u.put(ctx, up.url, body); err != nil || status != http.StatusOK {
		return fmt.Errorf("download phase's upload: %d %s %v", status, excerpt(raw), err)
	}
	path := "/api/v1/tickets/" + up.ticket + "/attachments/" + up.id
	if err := u.call(ctx, key, "POST", path+"/complete", nil, nil); err != nil {
		return err
	}
	var dl struct {
		Data struct {
			DownloadURL string `json:"download_url"`
		} `json:"data"`
	}
	if err := u.call(ctx, key, "GET", path+"/download", nil, &dl); err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: concurrentDownloads}}
	peak := u.watchRSS()
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for range concurrentDownloads {
		g.Go(func() error {
			for {
				req, err := http.NewRequestWithContext(gctx, http.MethodGet, dl.Data.DownloadURL, nil)
				if err != nil {
					return err
				}
				res, err := hc.Do(req)
				if err != nil {
					return err
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				switch {
				case res.StatusCode == http.StatusServiceUnavailable || res.StatusCode == http.StatusTooManyRequests:
					if err := sleepCtx(gctx, retryAfter(res.Header)); err != nil {
						return err
					}
					continue
				case err != nil || res.StatusCode != http.StatusOK || n != uploadSize:
					return fmt.Errorf("download: status %d, %d bytes: %v", res.StatusCode, n, err)
				}
				return nil
			}
		})
	}
	err = g.Wait()
	took := time.Since(start)
	top := peak()
	if err != nil {
		u.fail("downloads: %v", err)
	}
	fmt.Fprintf(u.out, "downloads: %d downloads of 25 MiB at once in %s, RSS peak %s (bound %s)\n",
		concurrentDownloads, took.Round(time.Millisecond), mib(top), mib(u.bounds.downloadRSS))
	if top > u.bounds.downloadRSS {
		u.fail("%d downloads at once took the RSS to %s, more than %s", concurrentDownloads, mib(top), mib(u.bounds.downloadRSS))
	}
	return ctx.Err()
}

// hammerPhase loops 25 MiB PUTs to four URLs of one account for
// hammerDuration while the victims create (and delete) filesystems.
func (u *uploadRun) hammerPhase(ctx context.Context, hammer string, victims []string) error {
	ups, err := u.initiate(ctx, hammer, hammerClients)
	if err != nil {
		return err
	}
	body := bytes.Repeat([]byte("fedcba9876543210"), uploadSize/16)
	peak := u.watchRSS()
	wal := u.watchWAL()
	hctx, cancel := context.WithTimeout(ctx, hammerDuration)
	defer cancel()
	var sent, accepted atomic.Int64
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, up := range ups {
		wg.Go(func() {
			for hctx.Err() == nil {
				status, n := u.hammerPut(hctx, up.url, body)
				sent.Add(n)
				mu.Lock()
				statuses[status]++
				mu.Unlock()
				if status == http.StatusOK {
					accepted.Add(uploadSize)
				}
			}
		})
	}
	var latencies []time.Duration
	var victimFailures []string
	for i, key := range victims {
		wg.Go(func() {
			for n := 0; hctx.Err() == nil; n++ {
				var fs struct {
					Data struct {
						ID string `json:"id"`
					} `json:"data"`
				}
				began := time.Now()
				status, header, raw, err := u.request(hctx, key, "POST", "/api/v1/filesystems",
					map[string]any{"name": fmt.Sprintf("victim-%d-%d", i, n), "region": "us-east-1"})
				took := time.Since(began)
				switch {
				case hctx.Err() != nil:
					return
				case err != nil || status >= 500:
					mu.Lock()
					victimFailures = append(victimFailures, fmt.Sprintf("create: %d %v %s", status, err, excerpt(raw)))
					mu.Unlock()
					continue
				case status == http.StatusTooManyRequests:
					_ = sleepCtx(hctx, retryAfter(header))
					continue
				case status != http.StatusOK:
					mu.Lock()
					victimFailures = append(victimFailures, fmt.Sprintf("create: %d %s", status, excerpt(raw)))
					mu.Unlock()
					return
				}
				mu.Lock()
				latencies = append(latencies, took)
				mu.Unlock()
				if json.Unmarshal(raw, &fs) == nil {
					_ = u.callCtx(hctx, key, "DELETE", "/api/v1/filesystems/"+fs.Data.ID, nil, nil)
				}
			}
		})
	}
	wg.Wait()
	rssTop, walTop := peak(), wal()
	slices.Sort(latencies)
	p50, p99 := quantile(latencies, 0.50), quantile(latencies, 0.99)
	fmt.Fprintf(u.out, "hammer: %d clients for %s wrote %s into their sockets, the server took %s; answers %v (0: cut off)\n",
		hammerClients, hammerDuration, mib(sent.Load()), mib(accepted.Load()), statuses)
	fmt.Fprintf(u.out, "hammer: other accounts' filesystem creates: %d, p50 %s, p99 %s (bound %s); WAL peak %s (bound %s, SQLite only); RSS peak %s (bound %s)\n",
		len(latencies), p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), u.bounds.victimP99,
		mib(walTop), mib(u.bounds.walBytes), mib(rssTop), mib(u.bounds.hammerRSS))
	if len(latencies) == 0 || p99 > u.bounds.victimP99 {
		u.fail("other accounts' creates: %d, p99 %s, bound %s", len(latencies), p99, u.bounds.victimP99)
	}
	if walTop > u.bounds.walBytes {
		u.fail("the WAL reached %s, more than %s", mib(walTop), mib(u.bounds.walBytes))
	}
	if rssTop > u.bounds.hammerRSS {
		u.fail("the hammer took the RSS to %s, more than %s", mib(rssTop), mib(u.bounds.hammerRSS))
	}
	if accepted.Load() > u.bounds.hammerBytes {
		u.fail("the hammer got the server to take %s, more than %s", mib(accepted.Load()), mib(u.bounds.hammerBytes))
	}
	if len(victimFailures) > 0 {
		u.fail("other accounts' creates failed %d times, first: %s", len(victimFailures), victimFailures[0])
	}
	return ctx.Err()
}

const hammerDuration = 15 * time.Second

// hammerPut sends one 25 MiB PUT on a fresh connection and reports the
// status (0 when there was no answer) and how many bytes went out.
func (u *uploadRun) hammerPut(ctx context.Context, rawURL string, body []byte) (int, int64) {
	counted := &countingReader{r: bytes.NewReader(body)}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, rawURL, counted)
	if err != nil {
		return 0, 0
	}
	req.ContentLength = int64(len(body))
	req.Close = true
	res, err := u.hc.Do(req)
	if err != nil {
		return 0, counted.n.Load()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
	_ = res.Body.Close()
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
		_ = sleepCtx(ctx, retryAfter(res.Header))
	}
	return res.StatusCode, counted.n.Load()
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// put sends body to a presigned URL.
func (u *uploadRun) put(ctx context.Context, rawURL string, body []byte) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	return send(u.hc, req)
}

// call sends an API request, waiting out 429s and 503s, and decodes a 200.
func (u *uploadRun) call(ctx context.Context, key, method, path string, in, out any) error {
	return u.callCtx(ctx, key, method, path, in, out)
}

func (u *uploadRun) callCtx(ctx context.Context, key, method, path string, in, out any) error {
	for {
		status, header, raw, err := u.request(ctx, key, method, path, in)
		switch {
		case err != nil:
			return err
		case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
			if err := sleepCtx(ctx, retryAfter(header)); err != nil {
				return err
			}
			continue
		case status != http.StatusOK:
			return fmt.Errorf("%s %s: status %d: %s", method, path, status, excerpt(raw))
		}
		if out != nil {
			return json.Unmarshal(raw, out)
		}
		return nil
	}
}

func (u *uploadRun) request(ctx context.Context, key, method, path string, in any) (int, http.Header, []byte, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, nil, err
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.srv.base+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return send(u.hc, req)
}

func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 200 * time.Millisecond
}

// sleepCtx waits d, or less when ctx ends first (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// watchRSS samples the server's RSS every 10 ms until the returned
// function is called, which stops it and returns the largest sample.
func (u *uploadRun) watchRSS() func() int64 {
	return u.watch(func() int64 { return u.rss() })
}

// watchWAL samples the size of the SQLite WAL (0 on PostgreSQL).
func (u *uploadRun) watchWAL() func() int64 {
	return u.watch(func() int64 {
		if fi, err := os.Stat(u.dsn + "-wal"); err == nil {
			return fi.Size()
		}
		return 0
	})
}

func (u *uploadRun) watch(sample func() int64) func() int64 {
	var top atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if v := sample(); v > top.Load() {
				top.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		if v := sample(); v > top.Load() {
			top.Store(v)
		}
		return top.Load()
	}
}

func (u *uploadRun) rss() int64 { return u.status("VmRSS") }

// status reads a kB field of the server's /proc/PID/status, in bytes.
func (u *uploadRun) status(field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", u.srv.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
