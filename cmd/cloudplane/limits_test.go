package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// One address opening 2,000 connections, half sending a request, half
// half their headers, gets the per-address cap and no more: past it, a
// request is answered 429 and a slow one is cut off; a client from another
// address is still served, and the slow connections within the cap are
// cut off at the read timeout.
func TestServerKeepsServingPastIdleAndSlowConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	const perIP, total = 256, 2000
	s := testserver.Start(t, testserver.Options{Database: filepath.Join(t.TempDir(), "c.db"), Args: []string{
		"--max-connections-per-ip", fmt.Sprint(perIP), "--max-connections", "1000", "--read-timeout", "2s", "--idle-timeout", "1m"}})
	addr := strings.TrimPrefix(s.URL, "http://")

	conns := make([]net.Conn, 0, total)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for i := range total {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		if i%2 == 1 { // slowloris: a request line and never the end of the headers
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
		} else {
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		}
		conns = append(conns, c)
	}

	// Another address, while all of that is open.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	res, err := client.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatalf("a client from another address: %v", err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("a client from another address: %d", res.StatusCode)
	}

	// Requests past the cap are answered 429, those within it served; slow
	// connections are closed, within the cap at the read timeout, past it
	// sooner.
	var read sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	deadline := time.Now().Add(10 * time.Second)
	for _, c := range conns {
		_ = c.SetReadDeadline(deadline)
		read.Add(1)
		go func() {
			defer read.Done()
			line, err := bufio.NewReader(c).ReadString('\n')
			kind := "open"
			switch {
			case strings.Contains(line, " 429 "):
				kind = "refused"
			case strings.Contains(line, " 200 "):
				kind = "served"
			case err != nil && !isTimeout(err):
				kind = "closed"
			case strings.Contains(line, " 408 "):
				kind = "closed"
			}
			mu.Lock()
			counts[kind]++
			mu.Unlock()
		}()
	}
	read.Wait()
	// The first perIP are served; a slot that a closed connection frees
	// (with more than --max-connections open, some wait to be accepted)
	// serves a later one.
	if counts["served"] < perIP/2 || counts["refused"] < perIP || counts["served"]+counts["refused"] != total/2 {
		t.Fatalf("%v; want at least %d served, the rest of %d refused", counts, perIP/2, total/2)
	}
	if counts["closed"] != total/2 {
		t.Fatalf("slow connections outlived the read timeout: %v", counts)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// A request stuck behind SQLite's write lock does not hold SIGTERM up:
// the process exits within --shutdown-timeout. A second signal ends it at
// once, with a failure status.
func TestShutdownIsBoundedWhateverTheDatabaseDoes(t *testing.T) {
	for _, second := range []bool{false, true} {
		t.Run(map[bool]string{false: "one signal", true: "second signal"}[second], func(t *testing.T) {
			dsn := migrated(t, filepath.Join(t.TempDir(), "stuck.db"))
			mustCLI(t, "users", "create", "--database", dsn, "--email", "stuck@example.com", "--password", "a long passphrase")
			key := lastLine(mustCLI(t, "apikeys", "create", "--database", dsn, "--email", "stuck@example.com"))
			timeout := "2s"
			if second {
				timeout = "5m"
			}
			// The request's own deadline is far away: only shutdown ends it.
			s := testserver.Start(t, testserver.Options{Database: dsn, Args: []string{"--shutdown-timeout", timeout,
				"--request-timeout", "5m", "--debug-addr", "127.0.0.1:0", "--rate-limit", "off"}})
			release := modelstest.HoldWriteLock(t, dsn)
			defer release()

			answered := make(chan error, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/filesystems",
					strings.NewReader(`{"name": "stuck", "region": "us-east-1"}`))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				res, err := (&http.Client{Timeout: time.Minute}).Do(req)
				if err == nil {
					_ = res.Body.Close()
				}
				answered <- err
			}()
			waitForStuckWrite(t, s)

			start := time.Now()
			if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			bound := 8 * time.Second // well under SQLite's 10 s busy timeout
			if second {
				s.WaitMatch(t, shuttingDownLog, 10*time.Second)
				if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-s.Done():
			case <-time.After(bound):
				t.Fatalf("still running %s after SIGTERM", time.Since(start).Round(time.Millisecond))
			}
			code := s.Cmd.ProcessState.ExitCode()
			if second != (code != 0) {
				t.Fatalf("exit code %d (second signal: %v)", code, second)
			}
		})
	}
}

// waitForStuckWrite waits until the server's database pool shows a
// connection in use: the request is waiting for the write lock.
func waitForStuckWrite(t *testing.T, s *testserver.Server) {
	t.Helper()
	m := s.WaitMatch(t, debugListening, 10*time.Second)
	testserver.Eventually(t, 20*time.Second, func() bool {
		res, err := http.Get("http://" + m[1] + "/debug/vars")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var vars struct {
			Database       struct{ InUse int }
			DatabaseWriter *struct{ Pool struct{ InUse int } } `json:"database_writer"`
		}
		return json.NewDecoder(res.Body).Decode(&vars) == nil &&
			(vars.Database.InUse > 0 || vars.DatabaseWriter != nil && vars.DatabaseWriter.Pool.InUse > 0)
	}, "the write to reach the database (a pool connection in use)")
}

var (
	debugListening  = regexp.MustCompile(`msg="pprof listening" addr=http://(\S+)/debug/pprof/`)
	shuttingDownLog = regexp.MustCompile(`msg="shutting down`)
)
