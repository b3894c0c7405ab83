package testserver

import (
	"bufio"
	"bytes"
	"io"
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
// environment env, and returns once it listens. The process is killed when
// the test ends, and its log is shown if the test failed.
func Start(tb testing.TB, env []string, args ...string) *Server {
	tb.Helper()
	s := &Server{done: make(chan struct{})}
	s.Cmd = exec.Command(Binary(tb), append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "text"}, args...)...)
	s.Cmd.Env = append(Env(), env...)
	stderr, err := s.Cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		s.readLogs(stderr, addr)
		_ = s.Cmd.Wait()
		close(s.done)
	}()
	tb.Cleanup(func() {
		_ = s.Cmd.Process.Kill()
		<-s.done
		if tb.Failed() {
			tb.Logf("server log:\n%s", s.Logs())
		}
	})
	select {
	case s.URL = <-addr:
		return s
	case <-s.done:
		tb.Fatalf("serve exited before listening\n%s", s.Logs())
	case <-time.After(30 * time.Second):
		tb.Fatalf("serve did not listen within 30 s\n%s", s.Logs())
	}
	return nil
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
