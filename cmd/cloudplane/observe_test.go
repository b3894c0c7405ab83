package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

var versionLine = regexp.MustCompile(`^cloudplane (\S+) \(commit (\S+), (go\S+)\)\n$`)

// `version` and `--version` print the same line.
func TestVersionCommand(t *testing.T) {
	out := mustCLI(t, "version")
	if !versionLine.MatchString(out) {
		t.Fatalf("version printed %q", out)
	}
	if again := mustCLI(t, "--version"); again != out {
		t.Fatalf("--version printed %q, version %q", again, out)
	}
}

// A release build names itself with -ldflags -X, and its commit when Go
// stamped one (not in a git worktree, whose .git is a file Go does not
// recognise).
func TestVersionOfAReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds another binary")
	}
	release := filepath.Join(t.TempDir(), "cloudplane")
	build := exec.Command("go", "build", "-buildvcs=true", "-ldflags", "-X main.version=v1.2.3", "-o", release, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(release, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	stamped, err := exec.Command("go", "version", "-m", release).Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := "unknown"
	if r := regexp.MustCompile(`vcs\.revision=(\S+)`).FindSubmatch(stamped); r != nil {
		rev = string(r[1])
	}
	m := versionLine.FindStringSubmatch(string(out))
	if m == nil || m[1] != "v1.2.3" || strings.TrimSuffix(m[2], "-dirty") != rev {
		t.Fatalf("release build printed %q, want v1.2.3 at %s", out, rev)
	}
}

var metricsListening = regexp.MustCompile(`msg="metrics listening" addr=(http://\S+)`)

// --metrics-addr serves the metrics on their own listener, naming the
// build and every limiter; a Redis that does not answer makes the server
// not ready, but alive.
func TestServeMetricsAndReadiness(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Database: modelstest.DSN(t), Args: []string{
		"--metrics-addr", "127.0.0.1:0", "--redis-url", "redis://" + testserver.RefusedAddress(t)}})
	m := metricsListening.FindStringSubmatch(s.Logs())
	if m == nil {
		t.Fatalf("no metrics address in the log:\n%s", s.Logs())
	}
	body := get(t, m[1], http.StatusOK)
	version, _, _ := testserver.Run(t, nil, "version") // the server's build, not this test's
	b := versionLine.FindStringSubmatch(version)
	for _, want := range []string{
		`cloudplane_build_info{commit="` + b[2] + `",go_version="` + b[3] + `",version="` + b[1] + `"} 1`,
		`cloudplane_rate_limit_rejections_total{limiter="auth"} 0`,
		`cloudplane_rate_limit_rejections_total{limiter="signin-address"} 0`,
		`cloudplane_rate_limit_rejections_total{limiter="signin-device"} 0`,
		`cloudplane_rate_limit_rejections_total{limiter="signin-known-devices"} 0`,
		`go_sql_max_open_connections{db_name="cloudplane"}`,
		"cloudplane_webhook_queue_depth 0", // the store's queue, adapted in watchStore
		"cloudplane_webhook_oldest_due_seconds 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in the metrics:\n%s", want, body)
		}
	}
	if !strings.Contains(s.Logs(), `version=`+b[1]) {
		t.Errorf("the startup line does not name the version:\n%s", s.Logs())
	}
	get(t, s.URL+"/livez", http.StatusOK)
	var ready struct{ Status, Reason string }
	if err := json.Unmarshal([]byte(get(t, s.URL+"/readyz", http.StatusServiceUnavailable)), &ready); err != nil ||
		ready.Status != "unavailable" || !strings.HasPrefix(ready.Reason, "redis: ") {
		t.Fatalf("readyz with Redis down: %+v %v", ready, err)
	}
	get(t, s.URL+"/metrics", http.StatusNotFound) // not on the public port
}

func get(t *testing.T, url string, status int) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d\n%s", url, res.StatusCode, status, body)
	}
	return string(body)
}

func TestUnknownLogFormat(t *testing.T) {
	_, stderr, code := cli(t, "serve", "--log-format", "xml", "--database", modelstest.DSN(t))
	if code == 0 || !strings.Contains(stderr, "--log-format") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
