// Package apitest checks HTTP traffic of cloudplane's /api/v1 against the
// Lambda Cloud API 1.10.0 reference OpenAPI document, so handler tests can
// prove drop-in compatibility instead of restating the contract by hand.
//
// The document is not part of this repository: it lives in ../shared/reference
// beside the repository root, which exists only in the dev/CI workspace.
// Tests skip cleanly when it is absent. Set CLOUDPLANE_OPENAPI_SPEC to use a
// document at another path.
//
// The document is OpenAPI 3.1.0. kin-openapi v0.152.0 reads 3.1 natively
// (const, anyOf with {type: null}, schema examples arrays, keywords beside
// $ref) and openapi3filter switches to its JSON Schema 2020-12 validator for
// 3.1 documents, so the document is loaded as is, without conversion. The
// package's own tests pin that behaviour (const and null checks).
package apitest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// SpecEnv names the environment variable holding an explicit path to the
// reference document; it overrides the lookup beside the repository root.
const SpecEnv = "CLOUDPLANE_OPENAPI_SPEC"

// specRelPath is the document's place relative to the repository root.
const specRelPath = "../shared/reference/lambda-cloud-api-openapi-1.10.0.json"

// Spec is the loaded reference document with a router over its operations.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
	path   string
	// own marks cloudplane's own document, which describes every answer
	// itself: no aliases, no added codes, and headers checked.
	own bool
}

// The document is parsed once per test binary: it is large and immutable.
var (
	loadOnce sync.Once
	loaded   *Spec
	loadPath string
	explicit bool // loadPath came from CLOUDPLANE_OPENAPI_SPEC
	loadErr  error
)

// Load returns the process-wide reference document. It skips tb when the
// document does not exist at the default location, and fails tb when it
// cannot be read or parsed, or when CLOUDPLANE_OPENAPI_SPEC names a missing
// file (an explicit path that is wrong is a setup error, not an absent
// workspace).
func Load(tb testing.TB) *Spec {
	tb.Helper()
	loadOnce.Do(func() {
		explicit = os.Getenv(SpecEnv) != ""
		loadPath, loadErr = specPath()
		if loadErr == nil {
			loaded, loadErr = load(loadPath)
		}
	})
	return settle(tb, loaded, loadPath, loadErr, explicit)
}

// Optional returns the reference document, or nil when it is absent at the
// default location, so that behaviour tests still run on a machine without
// ../shared/ and only the contract checks are left out (said once in the
// log). Validate methods on a nil *Spec do nothing.
func Optional(tb testing.TB) *Spec {
	tb.Helper()
	Load(skipRecorder{tb})
	if loadErr != nil && errors.Is(loadErr, fs.ErrNotExist) && !explicit {
		absentOnce.Do(func() {
			tb.Logf("reference OpenAPI document not found at %s; responses are not checked against it", loadPath)
		})
		return nil
	}
	return Load(tb)
}

var absentOnce sync.Once

// skipRecorder turns Load's skip into nothing, so Optional can decide.
type skipRecorder struct{ testing.TB }

func (skipRecorder) Skipf(string, ...any) {}
func (skipRecorder) Helper()              {}

// settle turns the outcome of loading into the test's fate: the spec, a skip
// for an absent workspace, or a failure. explicit tells whether the path came
// from CLOUDPLANE_OPENAPI_SPEC.
func settle(tb testing.TB, s *Spec, path string, err error, explicit bool) *Spec {
	tb.Helper()
	switch {
	case err == nil:
		return s
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		tb.Skipf("reference OpenAPI document not found at %s; skipping contract validation "+
			"(it lives in ../shared/ which exists only in the dev/CI workspace; set %s to override)",
			path, SpecEnv)
	default:
		tb.Fatalf("apitest: loading reference OpenAPI document: %v", err)
	}
	return nil
}

// ownRelPath is cloudplane's own document, relative to the repository root.
const ownRelPath = "handlers/api/openapi.json"

var (
	ownOnce sync.Once
	ownSpec *Spec
	ownErr  error
)

// Cloudplane returns cloudplane's own OpenAPI document, the one served at
// /api/v1/openapi.json. It is part of the repository, so it never skips:
// a document that is missing or does not parse fails tb.
func Cloudplane(tb testing.TB) *Spec {
	tb.Helper()
	ownOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			ownErr = err
			return
		}
		ownSpec, ownErr = load(filepath.Join(root, ownRelPath))
		if ownErr == nil {
			ownSpec.own = true
		}
	})
	if ownErr != nil {
		tb.Fatalf("apitest: loading cloudplane's OpenAPI document: %v", ownErr)
	}
	return ownSpec
}

// Document is the parsed document.
func (s *Spec) Document() *openapi3.T { return s.doc }

// Path is the file the document was loaded from.
func (s *Spec) Path() string { return s.path }

// specPath resolves the document's location: the env override, else
// ../shared/reference/... beside the repository root.
func specPath() (string, error) {
	if p := os.Getenv(SpecEnv); p != "" {
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return specRelPath, err
	}
	return filepath.Clean(filepath.Join(root, specRelPath)), nil
}

// repoRoot walks up to the directory holding go.mod. It starts from this
// source file (stable whichever package's test imports us) and falls back to
// the working directory for -trimpath builds, where the file name is relative.
func repoRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("no go.mod above %v: %w", starts, fs.ErrNotExist)
}

func load(path string) (*Spec, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	// The document's servers are the production hosts. Tests reach us at
	// whatever host httptest or fiber picks, so route on the path alone: the
	// legacy router ignores scheme and host when a document has no servers.
	doc.Servers = nil
	// NewRouter also validates the document itself.
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("building router for %s: %w", path, err)
	}
	return &Spec{doc: doc, router: router, path: path}, nil
}
