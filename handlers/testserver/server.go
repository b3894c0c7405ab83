package testserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options says how to run `cloudplane serve`.
type Options struct {
	// Database is the server's database, passed as --database: a SQLite
	// path or a postgres:// URL (see FreshDatabase and modelstest.DSN).
	// It is required, so every test chooses its database the same way.
	Database string
	// Args are more flags for serve.
	Args []string
	// Env is added to this process's environment without its CLOUDPLANE_*
	// variables (see Env).
	Env []string
	// Binary is the cloudplane binary to run; built from the module's
	// source (Build) when empty.
	Binary string
	// LogFile, when set, receives the server's stdout and every line of
	// its log as it is written.
	LogFile io.Writer
	// OnLine, when set, is called with each line of the log.
	OnLine func(line string)
	// TailLines, when above 0, keeps only that many last lines for Logs:
	// for a long run that logs every request.
	TailLines int
	// Timeout bounds the start: the address logged and /healthz
	// answering 200. 30 s when 0.
	Timeout time.Duration
	// HealthPoll is how often the start asks /healthz; 20 ms when 0. A
	// caller that times the start (scripts/bench/benchtool) asks more often.
	HealthPoll time.Duration
}

// Server is a running `cloudplane serve`.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:<port>.
	URL string
	Cmd *exec.Cmd

	opts  Options
	mu    sync.Mutex
	lines []string
	done  chan struct{}
	err   error // Cmd.Wait's, once done is closed
}

var listening = regexp.MustCompile(`msg="?cloudplane listening"?.* addr=(http://\S+)`)

// Start runs `cloudplane serve --addr 127.0.0.1:0` as o says and returns
// once /healthz answers. The process is killed when the test ends, and
// its log is shown if the test failed.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	if o.Binary == "" {
		o.Binary = Binary(tb)
	}
	s, err := launch(o)
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
// by a whole suite or the load test's: it reports errors instead of
// failing a test, and the caller stops the server with Terminate or
// Close. The server is returned with the error when it was started, so
// that the caller can still close it and read its log.
func Launch(o Options) (*Server, error) {
	if o.Binary == "" {
		bin, err := Build()
		if err != nil {
			return nil, fmt.Errorf("build cloudplane: %w", err)
		}
		o.Binary = bin
	}
	return launch(o)
}

func launch(o Options) (*Server, error) {
	if o.Database == "" {
		return nil, errors.New("testserver: Options.Database is required")
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.HealthPoll == 0 {
		o.HealthPoll = 20 * time.Millisecond
	}
	s := &Server{opts: o, done: make(chan struct{})}
	// Support staff sign in with a password alone unless a test turns the
	// rule on (o.Args come after, and the last flag wins).
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "text", "--database", o.Database,
		"--require-2fa-support=false"}, o.Args...)
	s.Cmd = exec.Command(o.Binary, args...)
	s.Cmd.Env = append(Env(), o.Env...)
	if o.LogFile != nil {
		s.Cmd.Stdout = o.LogFile
	}
	detach(s.Cmd)
	stderr, err := s.Cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.Cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		s.readLogs(stderr, addr) // Wait closes the pipe: read it to the end first
		s.err = s.Cmd.Wait()
		close(s.done)
	}()
	deadline := time.After(o.Timeout)
	select {
	case s.URL = <-addr:
	case <-s.done:
		return s, fmt.Errorf("serve exited before listening (%v)\n%s", s.err, s.Logs())
	case <-deadline:
		return s, fmt.Errorf("serve did not listen within %s\n%s", o.Timeout, s.Logs())
	}
	// The port is open before the server has finished starting (the
	// setup link, for one, is logged after it): /healthz answers once it
	// serves.
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		if res, err := client.Get(s.URL + "/healthz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return s, fmt.Errorf("serve exited before answering /healthz (%v)\n%s", s.err, s.Logs())
		case <-deadline:
			return s, fmt.Errorf("serve did not answer /healthz within %s\n%s", o.Timeout, s.Logs())
		case <-time.After(o.HealthPoll):
		}
	}
}

func (s *Server) readLogs(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if s.opts.LogFile != nil {
			_, _ = fmt.Fprintln(s.opts.LogFile, line)
		}
		if s.opts.OnLine != nil {
			s.opts.OnLine(line)
		}
		s.mu.Lock()
		s.lines = append(s.lines, line)
		if n := s.opts.TailLines; n > 0 && len(s.lines) > 2*n {
			s.lines = append(s.lines[:0], s.lines[len(s.lines)-n:]...)
		}
		s.mu.Unlock()
		if m := listening.FindStringSubmatch(line); m != nil && !found {
			found = true
			addr <- m[1]
		}
	}
	// A line too long for the scanner: keep reading, so that the server
	// never blocks writing its log.
	rest := io.Discard
	if s.opts.LogFile != nil {
		rest = s.opts.LogFile
	}
	_, _ = io.Copy(rest, r)
}

// Logs is everything the server has logged so far (its last
// Options.TailLines lines, when set).
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := s.lines
	if n := s.opts.TailLines; n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Close kills the server, if it still runs, and waits for it to exit.
func (s *Server) Close() {
	_ = s.Cmd.Process.Kill()
	<-s.done
}

// Done is closed once the process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is how the process ended (exec.Cmd.Wait's error), once Done is
// closed.
func (s *Server) Err() error {
	<-s.done
	return s.err
}

// Signal sends sig to the server.
func (s *Server) Signal(sig os.Signal) error { return s.Cmd.Process.Signal(sig) }

// Terminate stops the server as an operator does: SIGTERM, up to grace to
// drain and exit, then SIGKILL. It returns nil when the server exited 0
// within grace, else what was wrong: it had ended already, it had to be
// killed, or it exited non-zero.
func (s *Server) Terminate(grace time.Duration) error {
	select {
	case <-s.done:
		return fmt.Errorf("the server had ended already (%v)", s.err)
	default:
	}
	_ = s.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(grace):
		s.Close()
		return fmt.Errorf("the server did not exit within %s of SIGTERM and was killed", grace)
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return fmt.Errorf("the server exited with status %d after SIGTERM", exit.ExitCode())
	}
	return s.err
}

// Stop sends sig and waits up to timeout for the process to end. It
// returns the exit code, or -1 when a signal ended the process.
func (s *Server) Stop(tb testing.TB, sig syscall.Signal, timeout time.Duration) int {
	tb.Helper()
	if err := s.Signal(sig); err != nil {
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

// WaitLog waits until the log contains substr at least n times, failing
// the test after timeout or when the server exits first.
func (s *Server) WaitLog(tb testing.TB, substr string, n int, timeout time.Duration) {
	tb.Helper()
	s.await(tb, fmt.Sprintf("%q logged %d times", substr, n), timeout, func() bool {
		return strings.Count(s.Logs(), substr) >= n
	})
}

// FindLog waits until a line of the log matches re and returns the
// submatches of the first such line, or an error after timeout or when the
// server exits first.
func (s *Server) FindLog(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	var m []string
	err := s.poll(timeout, func() bool {
		for _, line := range strings.Split(s.Logs(), "\n") {
			if m = re.FindStringSubmatch(line); m != nil {
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("%s logged: %w\n%s", re, err, s.Logs())
	}
	return m, nil
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

// await is Eventually that also stops waiting, failing the test, when the
// server exits before cond holds.
func (s *Server) await(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	if err := s.poll(timeout, cond); err != nil {
		tb.Fatalf("waiting until %s: %v\n%s", what, err, s.Logs())
	}
}

// poll checks cond every pollInterval until it holds, timeout passes or
// the server exits.
func (s *Server) poll(timeout time.Duration, cond func() bool) error {
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-s.done:
			if cond() {
				return nil
			}
			return fmt.Errorf("the server exited first (%v)", s.err)
		case <-deadline:
			return fmt.Errorf("not within %s", timeout)
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// Run runs an operator command of the binary to completion with the extra
// environment env.
func Run(tb testing.TB, env []string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	stdout, stderr, code, err := RunContext(context.Background(), Binary(tb), env, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return stdout, stderr, code
}

// RunContext is Run for callers without a test or with a bound: it runs
// the operator command args of bin with the extra environment env until it
// exits or ctx ends. code is its exit status; err says it could not be
// run or ctx ended it first.
func RunContext(ctx context.Context, bin string, env []string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(Env(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err != nil && ctx.Err() != nil:
		return out.String(), errOut.String(), -1, fmt.Errorf("cloudplane %s: %w", strings.Join(args, " "), ctx.Err())
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode(), nil
	case err != nil:
		return out.String(), errOut.String(), -1, err
	}
	return out.String(), errOut.String(), 0, nil
}
