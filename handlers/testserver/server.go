package testserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a running `cloudplane serve`.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:<port>.
	URL  string
	Cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan struct{}
}

var listening = regexp.MustCompile(`msg="?cloudplane listening"?.* addr=(http://\S+)`)

// Start runs `cloudplane serve --addr 127.0.0.1:0` with args and the extra
// environment env, and returns once /healthz answers. The process is killed when
// the test ends, and its log is shown if the test failed.
func Start(tb testing.TB, env []string, args ...string) *Server {
	tb.Helper()
	bin := Binary(tb)
	s, err := launch(bin, env, args)
	if s != nil {
		tb.Cleanup(func() {
			s.Close()
			if tb.Failed() {
				tb.Logf("server log:\n%s", s.Logs())
			}
		})
	}
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Launch is Start for a server that outlives one test, such as one shared
// by a whole suite: it reports errors instead of failing a test, and the
// caller stops the server with Close (or Stop). The server is returned
// with the error when it was started, so that the caller can still close
// it and read its log.
func Launch(env []string, args ...string) (*Server, error) {
	bin, err := Build()
	if err != nil {
		return nil, fmt.Errorf("build cloudplane: %w", err)
	}
	return launch(bin, env, args)
}

func launch(bin string, env, args []string) (*Server, error) {
	s := &Server{done: make(chan struct{})}
	s.Cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "text"}, args...)...)
	s.Cmd.Env = append(Env(), env...)
	dieWithParent(s.Cmd)
	stderr, err := s.Cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.Cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		s.readLogs(stderr, addr)
		_ = s.Cmd.Wait()
		close(s.done)
	}()
	deadline := time.After(30 * time.Second)
	select {
	case s.URL = <-addr:
	case <-s.done:
		return s, fmt.Errorf("serve exited before listening\n%s", s.Logs())
	case <-deadline:
		return s, fmt.Errorf("serve did not listen within 30 s\n%s", s.Logs())
	}
	// The port is open before the server has finished starting (the
	// setup link, for one, is logged after it): /healthz answers once it
	// serves.
	for {
		if res, err := http.Get(s.URL + "/healthz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return s, fmt.Errorf("serve exited before answering /healthz\n%s", s.Logs())
		case <-deadline:
			return s, fmt.Errorf("serve did not answer /healthz within 30 s\n%s", s.Logs())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close kills the server, if it still runs, and waits for it to exit.
func (s *Server) Close() {
	_ = s.Cmd.Process.Kill()
	<-s.done
}

func (s *Server) readLogs(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.logs.WriteString(line + "\n")
		s.mu.Unlock()
		if m := listening.FindStringSubmatch(line); m != nil && !found {
			found = true
			addr <- m[1]
		}
	}
}

// Logs is everything the server has logged so far.
func (s *Server) Logs() string { s.mu.Lock(); defer s.mu.Unlock(); return s.logs.String() }

// WaitLog waits until the log contains substr at least n times, failing
// the test after timeout.
func (s *Server) WaitLog(tb testing.TB, substr string, n int, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for strings.Count(s.Logs(), substr) < n {
		select {
		case <-s.done:
			tb.Fatalf("server exited while waiting for %q in its log\n%s", substr, s.Logs())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%q not logged %d times within %s\n%s", substr, n, timeout, s.Logs())
		}
	}
}

// FindLog waits until a line of the log matches re and returns the
// submatches of the first such line, or an error after timeout or when the
// server exits first.
func (s *Server) FindLog(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.After(timeout)
	for {
		for _, line := range strings.Split(s.Logs(), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				return m, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("server exited before logging %s\n%s", re, s.Logs())
		case <-deadline:
			return nil, fmt.Errorf("no %s logged within %s\n%s", re, timeout, s.Logs())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WaitMatch is FindLog failing the test instead of returning an error.
func (s *Server) WaitMatch(tb testing.TB, re *regexp.Regexp, timeout time.Duration) []string {
	tb.Helper()
	m, err := s.FindLog(re, timeout)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// Stop sends sig and waits up to timeout for the process to end. It
// returns the exit code, or -1 when a signal ended the process.
func (s *Server) Stop(tb testing.TB, sig syscall.Signal, timeout time.Duration) int {
	tb.Helper()
	if err := s.Cmd.Process.Signal(sig); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(timeout):
		tb.Fatalf("serve did not stop within %s of %v\n%s", timeout, sig, s.Logs())
	}
	if status, ok := s.Cmd.ProcessState.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return -1
	}
	return s.Cmd.ProcessState.ExitCode()
}

// Done is closed once the process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// Run runs an operator command of the binary to completion with the extra
// environment env.
func Run(tb testing.TB, env []string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	cmd := exec.Command(Binary(tb), args...)
	cmd.Env = append(Env(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}
