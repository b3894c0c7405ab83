package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// password is every test user's password.
const password = "correct horse battery staple"

// watchSources reads cmd/cloudplane's sources so that `go test` records
// them as inputs of this test: a change to the flags or the start-up then
// runs the suite again instead of answering from the test cache.
func watchSources() error {
	dir := filepath.Join("..", "cmd", "cloudplane")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			if _, err := os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// build compiles the server binary, as an operator would run it.
func build(bin string) error {
	cmd := exec.Command("go", "build", "-o", bin, "cloudplane/cmd/cloudplane")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// serverEnv is this process's environment without CLOUDPLANE_*
// variables: the server reads every flag from one, and a developer's
// CLOUDPLANE_REDIS_URL or CLOUDPLANE_INSTANCE_CAPACITY must not change
// what the tests run against.
func serverEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDPLANE_") {
			out = append(out, kv)
		}
	}
	return out
}

// server is the running `cloudplane serve`.
type server struct {
	cmd    *exec.Cmd
	base   string
	setup  string
	exited chan struct{}
	log    *logWatcher
}

var (
	listeningLine = regexp.MustCompile(`msg="cloudplane listening".* addr=(http://\S+)`)
	setupLine     = regexp.MustCompile(`url=(http://\S+/setup/[0-9a-f]+)`)
)

// startServer runs `cloudplane serve` on a port the kernel picks (the
// address is read back from the log, so no other process can take the
// port in between), with limits off and a short boot time, and waits
// until /healthz answers.
func startServer(bin, db, logPath string) (*server, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	w := &logWatcher{file: logFile, found: map[*regexp.Regexp]chan string{
		listeningLine: make(chan string, 1), setupLine: make(chan string, 1)}}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--database", db,
		"--rate-limit", "off", "--launch-rate-limit", "off", "--instance-boot-time", "2s")
	cmd.Env = serverEnv()
	cmd.Stdout, cmd.Stderr = w, w
	dieWithTests(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	s := &server{cmd: cmd, exited: make(chan struct{}), log: w}
	go func() { _ = cmd.Wait(); _ = logFile.Close(); close(s.exited) }()

	deadline := time.After(60 * time.Second)
	for _, what := range []struct {
		re   *regexp.Regexp
		into *string
		name string
	}{{listeningLine, &s.base, "the listening address"}, {setupLine, &s.setup, "the setup link"}} {
		select {
		case *what.into = <-w.found[what.re]:
		case <-s.exited:
			return s, fmt.Errorf("server exited before logging %s:\n%s", what.name, w.text())
		case <-deadline:
			return s, fmt.Errorf("server logged no %s within 60s:\n%s", what.name, w.text())
		}
	}
	return s, s.waitHealthy()
}

func (s *server) waitHealthy() error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("server exited:\n%s", s.log.text())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s/healthz did not answer 200 within 60s", s.base)
}

// stop asks the server to drain and exit, as an operator's SIGTERM does,
// and kills it if it does not.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// logWatcher keeps the server's output in a file and reports the first
// line matching each pattern.
type logWatcher struct {
	mu      sync.Mutex
	file    *os.File
	all     bytes.Buffer
	partial []byte
	found   map[*regexp.Regexp]chan string
}

func (w *logWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.file.Write(p)
	w.all.Write(p)
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		for re, ch := range w.found {
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case ch <- m[1]:
				default: // reported already
				}
			}
		}
	}
}

func (w *logWatcher) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// cli runs an operator command against the server's database, as the
// README says one may while the server runs, and returns its stdout.
func (s *suite) cli(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, append(args, "--database", s.db)...)
	cmd.Env = serverEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cloudplane %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// owner is a user who owns an account, with their password.
type owner struct {
	email    string
	password string
}

// owners numbers the owners created, so that a test run again in the same
// process (-count) gets a new one.
var owners atomic.Int64

// newOwner creates an owner with an account of their own, named after
// the test, so that tests see only their own resources and events. The
// first-run setup is done first: it only works while no user exists.
func (s *suite) newOwner(t *testing.T) owner {
	t.Helper()
	s.firstOwner(t)
	o := owner{email: fmt.Sprintf("%s-%d@example.com", slug(t.Name()), owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", o.email, "--password", o.password)
	return o
}

// apiKey creates an API key for the owner with the CLI.
func (s *suite) apiKey(t *testing.T, o owner) string {
	t.Helper()
	out := strings.TrimSpace(s.cli(t, "apikeys", "create", "--email", o.email, "--name", "e2e checks"))
	lines := strings.Split(out, "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(key, "cpk_") {
		t.Fatalf("apikeys create printed no key on its last line:\n%s", out)
	}
	return key
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a test or step name usable in file names and emails.
func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var errSetupNotDone = errors.New("the first-run setup did not finish (see the first test that ran it)")
