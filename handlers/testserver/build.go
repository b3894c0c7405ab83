// Package testserver gives every test its server, one way:
//
//   - in-process: Serve runs a *fiber.App the test built (handlers.New) on
//     127.0.0.1 port 0 until the test ends, and Test sends one request
//     through an app without a listener;
//   - as the real binary: Start (and Launch, for a suite or the load test)
//     builds `cloudplane` once per state of the source, shared by every test
//     package of a `go test` run, starts `serve` on port 0 on the database
//     the caller chose, and learns the address from its log; Run runs an
//     operator command;
//   - and what tests wait with: Eventually polls a condition to a deadline,
//     RefusedAddress is an address nothing listens on.
//
// It imports no cloudplane package, so that every test package, the
// internal tests of models and handlers included, can use it. Databases
// are made by models/modelstest; FreshDatabase takes its provisioner.
//
// Reading the sources to hash them is also what keeps `go test` honest: the
// test cache records every file a test opens, so a change to the server's
// code reruns the tests that use the binary instead of answering (cached).
package testserver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the path of a cloudplane binary built from the module's
// current source, building it at most once per source state on this
// machine.
func Binary(tb testing.TB) string {
	tb.Helper()
	bin, err := Build()
	if err != nil {
		tb.Fatalf("build cloudplane: %v", err)
	}
	return bin
}

// Build is Binary for code that reports errors instead of failing a test,
// such as a suite started once for many tests.
func Build() (string, error) {
	buildOnce.Do(func() { binPath, buildErr = build() })
	return binPath, buildErr
}

func build() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum, err := sourceHash(root)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "cloudplane-testbin", sum[:16])
	bin := filepath.Join(dir, "cloudplane")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	// Test packages run in parallel processes: one builds, the others wait
	// on the lock and then find the binary.
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "./cmd/cloudplane")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, os.Rename(tmp, bin)
}

// moduleRoot is the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// skippedDirs hold nothing the binary is built from.
var skippedDirs = []string{".git", ".ci", "bin", "data", "e2e", "node_modules", "scripts", "testdata"}

// sourceHash hashes every file the binary can be built from: Go sources
// (not tests), embedded assets and SQL, go.mod and go.sum.
func sourceHash(root string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (slices.Contains(skippedDirs, name) || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// Env is this process's environment without CLOUDPLANE_* variables: the
// binary reads every flag from one, and a developer's CLOUDPLANE_REDIS_URL
// must not change what tests run against.
func Env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDPLANE_") {
			out = append(out, kv)
		}
	}
	return out
}
