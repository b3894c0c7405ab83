package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// listeningLine is the line `cloudplane serve` logs once it listens.
var listeningLine = regexp.MustCompile(`msg="cloudplane listening".* addr=(http://127\.0\.0\.1:\d+)\b`)

// server is the `cloudplane serve` process the run started.
type server struct {
	cmd    *exec.Cmd
	base   string
	exited chan struct{} // closed when the process has ended
	err    error         // its Wait error, once exited is closed

	mu   sync.Mutex
	tail []string // the last lines of its log

	stopOnce sync.Once
	stopped  []string // what stop found

	claimFailures atomic.Int64 // log lines of failed webhook claims
}

const logTailLines = 40

// startServer runs `bin serve` on 127.0.0.1 port 0 with args, writes its
// log to logPath, and returns once it has logged its address (bounded by
// wait).
func startServer(bin, logPath string, args []string, wait time.Duration) (*server, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = serverEnv()
	detach(cmd)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		_ = logFile.Close()
		return nil, err
	}
	cmd.Stdout = logFile
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	s := &server{cmd: cmd, exited: make(chan struct{})}
	addr := make(chan string, 1)
	logged := make(chan struct{})
	go func() { s.readLog(pipe, logFile, addr); close(logged) }()
	go func() {
		<-logged // Wait closes the pipe: read it to the end first
		s.err = cmd.Wait()
		_ = logFile.Close()
		close(s.exited)
	}()
	select {
	case s.base = <-addr:
		return s, nil
	case <-s.exited:
		return s, fmt.Errorf("server exited before listening (%v):\n%s", s.err, s.logTail())
	case <-time.After(wait):
		return s, fmt.Errorf("server did not log its address within %s:\n%s", wait, s.logTail())
	}
}

func (s *server) readLog(r io.Reader, file io.Writer, addr chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		_, _ = fmt.Fprintln(file, line)
		s.mu.Lock()
		s.tail = append(s.tail, line)
		if len(s.tail) > logTailLines {
			s.tail = s.tail[len(s.tail)-logTailLines:]
		}
		s.mu.Unlock()
		if countsAsClaimFailure(line) {
			s.claimFailures.Add(1)
		}
		if m := listeningLine.FindStringSubmatch(line); m != nil {
			select {
			case addr <- m[1]:
			default:
			}
		}
	}
	_, _ = io.Copy(file, r) // a line too long for the scanner: keep the rest
}

func (s *server) logTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// stop sends SIGTERM and waits up to grace for the server to drain and
// exit, then kills it. It returns what was wrong with the way it ended:
// it had ended already, it had to be killed, or it exited non-zero.
// Calls after the first return the first one's findings.
func (s *server) stop(grace time.Duration) []string {
	s.stopOnce.Do(func() { s.stopped = s.terminate(grace) })
	return s.stopped
}

func (s *server) terminate(grace time.Duration) []string {
	select {
	case <-s.exited:
		return []string{fmt.Sprintf("the server ended during the run (%v)", s.err)}
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(grace):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return []string{fmt.Sprintf("the server did not exit within %s of SIGTERM and was killed", grace)}
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return []string{fmt.Sprintf("the server exited with status %d after SIGTERM", exit.ExitCode())}
	}
	return nil
}

// serverEnv is this environment without CLOUDPLANE_* variables, which
// the server would read as flags: the run uses only the flags it gives.
func serverEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDPLANE_") {
			out = append(out, kv)
		}
	}
	return out
}
