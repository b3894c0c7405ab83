package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloudplane/models"
)

// bin is the cloudplane binary built once for this package's tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cloudplane-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "cloudplane")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs one command of the binary to completion.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = cleanEnv()
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// mustCLI runs a command that must succeed and returns its stdout.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("cloudplane %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// cleanEnv keeps CLOUDPLANE_* settings of the developer's shell out of
// the commands under test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDPLANE_") {
			env = append(env, kv)
		}
	}
	return env
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// server is a running `cloudplane serve`.
type server struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

var listening = regexp.MustCompile(`msg="cloudplane listening" addr=(http://\S+)`)

// startServer runs `cloudplane serve` with args and waits until it listens.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	s := &server{done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	s.cmd.Env = cleanEnv()
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go s.readLogs(stderr, addr)
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.log())
		}
	})
	select {
	case s.url = <-addr:
		return s
	case err := <-s.done:
		t.Fatalf("serve exited before listening: %v\n%s", err, s.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not listen in time\n%s", s.log())
	}
	return nil
}

func (s *server) readLogs(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.logs.WriteString(line + "\n")
		s.mu.Unlock()
		if m := listening.FindStringSubmatch(line); m != nil {
			addr <- m[1]
		}
	}
}

func (s *server) log() string { s.mu.Lock(); defer s.mu.Unlock(); return s.logs.String() }

// stop sends sig and waits for the process to end, returning its exit code.
func (s *server) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop on %v", sig)
	}
	if status, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return -1
	}
	return s.cmd.ProcessState.ExitCode()
}

// openDB opens the database the binary uses, for checks and fixtures.
func openDB(t *testing.T, dsn string) *models.Store {
	t.Helper()
	db, err := models.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	store := models.NewStore(db)
	t.Cleanup(func() { _ = store.Close() })
	return store
}
