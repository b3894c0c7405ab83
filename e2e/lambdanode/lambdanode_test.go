// Package lambdanode runs a published client of the Lambda Cloud API, the
// npm package lambda-cloud-node-api (pinned in package-lock.json), against
// a live cloudplane: check.mjs calls every method it has and checks the
// answers, so compatibility is judged by code nobody here wrote.
//
// CI installs the package first (`npm ci --prefix e2e/lambdanode`, see
// .ci/run); otherwise the test runs `npm ci` itself. It skips, saying why,
// without node 18+ and npm, when the npm registry cannot be reached and
// the package is not installed, with -short, or with CLOUDPLANE_E2E=off.
package lambdanode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// packageName is the client under test; its version is the lock file's.
const packageName = "lambda-cloud-node-api"

func TestLambdaCloudNodeAPIAgainstCloudplane(t *testing.T) {
	switch {
	case os.Getenv("CLOUDPLANE_E2E") == "off":
		t.Skip("end-to-end tests are off (CLOUDPLANE_E2E=off)")
	case testing.Short():
		t.Skip("the node client check starts a server; skipped with -short")
	}
	node := needNode(t)
	// Read here so that a change to the script or the pinned version is
	// part of go test's cache key; node reads them in another process.
	if _, err := os.ReadFile("check.mjs"); err != nil {
		t.Fatal(err)
	}
	version := lockedVersion(t)
	installClient(t, version)

	db := modelstest.DSN(t)
	srv := testserver.Start(t, testserver.Options{Database: db, Args: []string{"--rate-limit", "off",
		"--launch-rate-limit", "off", "--instance-boot-time", "1s"}})
	email := "node-client@example.com"
	cli(t, "users", "create", "--email", email, "--password", "correct horse battery staple", "--database", db)
	out := cli(t, "apikeys", "create", "--email", email, "--name", "lambda-cloud-node-api", "--database", db)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(key, "cpk_") {
		t.Fatalf("apikeys create printed no key on its last line:\n%s", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "check.mjs")
	cmd.Env = append(testserver.Env(), "LAMBDA_API_BASE_URL="+srv.URL+"/api/v1", "LAMBDA_API_KEY="+key)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	t.Logf("%s %s against %s:\n%s", packageName, version, modelstest.Backend(), output.String())
	if err != nil {
		t.Fatalf("node check.mjs: %v", err)
	}
}

// cli runs an operator command, as the README's first API call does, and
// returns its stdout.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := testserver.Run(t, nil, args...)
	if code != 0 {
		t.Fatalf("cloudplane %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// needNode returns node's path, skipping without node 18 or later (the
// client uses the fetch API) or without npm.
func needNode(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the lambda-cloud-node-api check needs node 18+ and npm")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the lambda-cloud-node-api check needs node 18+ and npm")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.Split(v, ".")[0])
	if major < 18 {
		t.Skipf("node %s is too old: lambda-cloud-node-api needs node 18+ (the fetch API)", v)
	}
	return node
}

// lockedVersion is the client's version package-lock.json pins.
func lockedVersion(t *testing.T) string {
	raw, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	v := lock.Packages["node_modules/"+packageName].Version
	if v == "" {
		t.Fatalf("package-lock.json pins no %s", packageName)
	}
	return v
}

// installClient runs `npm ci` unless the pinned version is installed
// already (CI installs it before the tests), skipping when the registry
// cannot be reached.
func installClient(t *testing.T, version string) {
	if installed, err := os.ReadFile(filepath.Join("node_modules", packageName, "package.json")); err == nil {
		var pkg struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(installed, &pkg) == nil && pkg.Version == version {
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "ping", "--fetch-timeout=15000", "--fetch-retries=0").CombinedOutput(); err != nil {
		t.Skipf("the npm registry cannot be reached (npm ping: %v), and %s %s is not installed in e2e/lambdanode:\n%s",
			err, packageName, version, out)
	}
	if out, err := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund").CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
}
