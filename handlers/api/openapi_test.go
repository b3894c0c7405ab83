package api_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"cloudplane/handlers/api/apitest"
	"cloudplane/handlers/testserver"
)

// The document is served without a key, byte for byte as committed, and
// revalidates with its ETag.
func TestOpenAPIDocumentIsServed(t *testing.T) {
	e := newEnv(t)
	r := e.doAs("", http.MethodGet, "/api/v1/openapi.json", nil).expect(http.StatusOK)
	want, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Body, want) {
		t.Fatal("the served document is not handlers/api/openapi.json")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil)
	req.Header.Set("If-None-Match", etag)
	res, _ := testserver.Test(t, e.app, req)
	if res.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag: %d, want 304", res.StatusCode)
	}

	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v", err)
	}
}

// Every API route is documented and every documented operation is served,
// so the document cannot fall behind the router or promise too much.
func TestOpenAPIDocumentCoversEveryRoute(t *testing.T) {
	e := newEnv(t)
	served := map[string]bool{}
	for _, r := range e.app.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/api/v1/") || r.Method == http.MethodHead {
			continue
		}
		segments := strings.Split(r.Path, "/")
		for i, s := range segments {
			if strings.HasPrefix(s, ":") {
				segments[i] = "{" + s[1:] + "}"
			}
		}
		served[r.Method+" "+strings.Join(segments, "/")] = true
	}
	documented := map[string]bool{}
	for path, item := range apitest.Cloudplane(t).Document().Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	var missing, extra []string
	for op := range served {
		if !documented[op] {
			missing = append(missing, op)
		}
	}
	for op := range documented {
		if !served[op] {
			extra = append(extra, op)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("served but not documented: %v\ndocumented but not served: %v", missing, extra)
	}
}

// cloudplane's document is strict about what it allows, so checking every
// answer against it proves something.
func TestOwnDocumentRefusesWrongAnswers(t *testing.T) {
	own := apitest.Cloudplane(t)
	json := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, method, path string
		status             int
		body               string
	}{
		{"429 with another code", http.MethodGet, "/api/v1/regions", 429,
			`{"error":{"code":"global/quota-exceeded","message":"Too many requests"}}`},
		{"error without a message", http.MethodPost, "/api/v1/filesystems", 400,
			`{"error":{"code":"global/invalid-parameters"}}`},
		{"field the envelope does not have", http.MethodDelete, "/api/v1/ssh-keys/abc", 404,
			`{"error":{"code":"global/not-found","message":"No such key"},"extra":1}`},
		{"404 code another operation answers", http.MethodDelete, "/api/v1/ssh-keys/abc", 404,
			`{"error":{"code":"global/object-does-not-exist","message":"No such key"}}`},
		{"404 code of no object", http.MethodDelete, "/api/v1/filesystems/abc", 404,
			`{"error":{"code":"global/not-found","message":"No such filesystem"}}`},
		{"undocumented status", http.MethodGet, "/api/v1/regions", 418, `{}`},
		{"412 where no If-Match is taken", http.MethodDelete, "/api/v1/ssh-keys/abc", 412,
			`{"error":{"code":"global/precondition-failed","message":"changed"}}`},
		{"list that is not a list", http.MethodGet, "/api/v1/filesystems", 200, `{"data":{}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &failRecorder{TB: t}
			own.ValidateResponse(rec, c.method, c.path, c.status, json, []byte(c.body))
			if !rec.failed {
				t.Fatal("passed validation")
			}
		})
	}
	rec := &failRecorder{TB: t}
	own.ValidateResponse(rec, http.MethodGet, "/api/v1/regions", 429, json,
		[]byte(`{"error":{"code":"global/rate-limited","message":"Too many requests","request_id":"r1"}}`))
	if rec.failed {
		t.Fatalf("a correct 429 failed: %s", rec.msg)
	}
}
