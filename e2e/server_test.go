package e2e

import (
	"cloudplane/e2e/browser"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// password is every test user's password.
const password = "correct horse battery staple"

var setupLine = regexp.MustCompile(`url=(http://\S+/setup/[0-9a-f]+)`)

// suiteCapacity is the default capacity's types and regions with room
// for every test of the suite: they share one server, and the default's
// few slots ran out once enough of them launched an A10 in us-east-1.
func suiteCapacity() string {
	var pairs []string
	for typ, regions := range models.DefaultCapacity() {
		for region, n := range regions {
			pairs = append(pairs, fmt.Sprintf("%s:%s=%d", typ, region, n*50))
		}
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}

// startServer runs `cloudplane serve` through testserver (port 0, read
// back from the log), with limits off and a short boot time, and reads
// the first-run setup link from its log. stop ends it and writes its log
// to logPath.
func startServer(db, logPath string) (srv *testserver.Server, setup string, stop func(), err error) {
	srv, err = testserver.Launch(testserver.Options{Database: db, Args: []string{
		"--rate-limit", "off", "--launch-rate-limit", "off", "--instance-boot-time", "2s",
		"--instance-capacity", suiteCapacity()}})
	if srv == nil {
		return nil, "", func() {}, err
	}
	stop = func() {
		// Drain as an operator's SIGTERM does; what is left is killed.
		_ = srv.Terminate(30 * time.Second)
		_ = os.WriteFile(logPath, []byte(srv.Logs()), 0o644)
	}
	if err != nil {
		return srv, "", stop, err
	}
	m, err := srv.FindLog(setupLine, 60*time.Second)
	if err != nil {
		return srv, "", stop, err
	}
	return srv, m[1], stop, nil
}

// cli runs an operator command against the server's database, as the
// README says one may while the server runs, and returns its stdout.
func (s *suite) cli(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	stdout, stderr, code, err := testserver.RunContext(ctx, s.bin, nil, append(args, "--database", s.db)...)
	if err != nil || code != 0 {
		t.Fatalf("cloudplane %s: exit %d %v\n%s", strings.Join(args, " "), code, err, stderr)
	}
	return stdout
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
	o := owner{email: fmt.Sprintf("%s-%d@example.com", browser.Slug(t.Name()), owners.Add(1)), password: password}
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

var errSetupNotDone = errors.New("the first-run setup did not finish (see the first test that ran it)")
