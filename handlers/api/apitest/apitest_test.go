package apitest

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// recorder is a testing.TB that records failures instead of failing, so the
// tests can assert that the validator rejects bad traffic.
type recorder struct {
	testing.TB
	failures []string
	skipped  string
}

func (r *recorder) Helper()           {}
func (r *recorder) Error(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatal(args ...any)              { r.Error(args...) }
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }

const filesystem = `{
	"id": "0f3c9a1e5b7d4c2a8e6f1b3d5a7c9e01",
	"name": "my-filesystem",
	"mount_point": "/lambda/nfs/my-filesystem",
	"created": "2024-05-01T12:00:00Z",
	"created_by": {"id": "u1", "email": "dev@example.com", "status": "active"},
	"is_in_use": false,
	"region": {"name": "us-west-1", "description": "California, USA"},
	"bytes_used": 0
}`

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

type responseCase struct {
	name   string
	method string
	path   string
	status int
	header http.Header
	body   string
	// wantFail is a substring of the expected failure; "" means it must pass.
	wantFail string
}

func TestValidateResponse(t *testing.T) {
	spec := Load(t)
	noMountPoint := strings.Replace(filesystem, `"mount_point": "/lambda/nfs/my-filesystem",`, "", 1)
	cases := []responseCase{
		{name: "filesystem list", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: jsonHeader, body: `{"data": [` + filesystem + `]}`},
		{name: "undocumented GET /filesystems aliases /file-systems", method: "GET", path: "/api/v1/filesystems",
			status: 200, header: jsonHeader, body: `{"data": [` + filesystem + `]}`},
		{name: "alias is validated too", method: "GET", path: "/api/v1/filesystems",
			status: 200, header: jsonHeader, body: `{"data": [` + noMountPoint + `]}`, wantFail: "mount_point"},
		{name: "charset and absent Content-Type accepted", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, body: `{"data": []}`},
		{name: "nil header", method: "GET", path: "/api/v1/file-systems", status: 200, body: `{"data": []}`},
		{name: "missing required field", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: jsonHeader, body: `{"data": [` + noMountPoint + `]}`, wantFail: "mount_point"},
		{name: "timestamps must be RFC 3339", method: "GET", path: "/api/v1/file-systems", status: 200, header: jsonHeader,
			body:     `{"data": [` + strings.Replace(filesystem, "2024-05-01T12:00:00Z", "2024-05-01 12:00", 1) + `]}`,
			wantFail: "date-time"},
		{name: "extra top-level field", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: jsonHeader, body: `{"data": [], "next": null}`, wantFail: "next"},
		{name: "not JSON", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: jsonHeader, body: `data`, wantFail: "decode"},
		{name: "non-JSON Content-Type", method: "GET", path: "/api/v1/file-systems", status: 200,
			header: http.Header{"Content-Type": {"text/plain"}}, body: `{"data": []}`, wantFail: "Content-Type"},
		{name: "path parameter routes; request_id inside error allowed", method: "DELETE", path: "/api/v1/filesystems/abc",
			status: 404, header: jsonHeader,
			body: `{"error": {"code": "global/object-does-not-exist", "message": "no such filesystem", "request_id": "req-1"}}`},
		{name: "wrong 404 code for delete filesystem", method: "DELETE", path: "/api/v1/filesystems/abc",
			status: 404, header: jsonHeader, body: `{"error": {"code": "global/not-found", "message": "m"}}`,
			wantFail: "global/object-does-not-exist"},
		{name: "list endpoints use global/not-found", method: "GET", path: "/api/v1/file-systems",
			status: 404, header: jsonHeader, body: `{"error": {"code": "global/object-does-not-exist", "message": "m"}}`,
			wantFail: "global/not-found"},
		{name: "401 requires suggestion", method: "GET", path: "/api/v1/instances", status: 401,
			header: jsonHeader, body: `{"error": {"code": "global/invalid-api-key", "message": "m"}}`, wantFail: "suggestion"},
		{name: "nullable string accepts null", method: "GET", path: "/api/v1/audit-events?page_token=x", status: 200,
			header: jsonHeader, body: `{"data": [], "page_token": null}`},
		{name: "nullable string rejects number", method: "GET", path: "/api/v1/audit-events", status: 200,
			header: jsonHeader, body: `{"data": [], "page_token": 5}`, wantFail: "page_token"},
		{name: "undocumented status", method: "GET", path: "/api/v1/file-systems", status: 418,
			header: jsonHeader, body: `{}`, wantFail: "status is not supported"},
		{name: "unknown route", method: "GET", path: "/api/v1/nope", status: 200,
			header: jsonHeader, body: `{}`, wantFail: "not in the reference document"},
		{name: "undocumented method", method: "PUT", path: "/api/v1/file-systems", status: 200,
			header: jsonHeader, body: `{"data": []}`, wantFail: "not in the reference document"},
		{name: "429 rate limited", method: "GET", path: "/api/v1/instances", status: 429, header: jsonHeader,
			body: `{"error": {"code": "global/rate-limited", "message": "Too many requests.", "request_id": "r"}}`},
		{name: "429 wrong code", method: "GET", path: "/api/v1/instances", status: 429, header: jsonHeader,
			body: `{"error": {"code": "global/quota-exceeded", "message": "m"}}`, wantFail: "global/rate-limited"},
		{name: "429 without envelope", method: "GET", path: "/api/v1/instances", status: 429, header: jsonHeader,
			body: `{"code": "global/rate-limited"}`, wantFail: "429"},
		{name: "429 on unknown route", method: "GET", path: "/api/v1/nope", status: 429, header: jsonHeader,
			body: `{"error": {"code": "global/rate-limited", "message": "m"}}`, wantFail: "not in the reference document"},
		{name: "412 precondition failed", method: "PUT", path: "/api/v1/firewall-rules", status: 412, header: jsonHeader,
			body: `{"error": {"code": "global/precondition-failed", "message": "m", "request_id": "r"}}`},
		{name: "412 wrong code", method: "PUT", path: "/api/v1/firewall-rules", status: 412, header: jsonHeader,
			body: `{"error": {"code": "global/internal-error", "message": "m"}}`, wantFail: "global/precondition-failed"},
		{name: "409 idempotency key in flight where the document has no 409", method: "POST", path: "/api/v1/filesystems",
			status: 409, header: jsonHeader, body: `{"error": {"code": "global/internal-error", "message": "m", "request_id": "r"}}`},
		{name: "403 insufficient scope", method: "POST", path: "/api/v1/filesystems", status: 403, header: jsonHeader,
			body: `{"error": {"code": "global/insufficient-scope", "message": "m", "request_id": "r"}}`},
		{name: "403 of the document still checked", method: "POST", path: "/api/v1/filesystems", status: 403, header: jsonHeader,
			body: `{"error": {"code": "global/forbidden", "message": "m"}}`, wantFail: "403"},
		{name: "missing SSH key is global/not-found", method: "DELETE", path: "/api/v1/ssh-keys/abc", status: 404,
			header: jsonHeader, body: `{"error": {"code": "global/not-found", "message": "m", "request_id": "r"}}`},
		{name: "the code is checked per operation", method: "DELETE", path: "/api/v1/ssh-keys/abc", status: 404,
			header: jsonHeader, body: `{"error": {"code": "global/object-does-not-exist", "message": "m"}}`,
			wantFail: `error code "global/object-does-not-exist" is not one DELETE /api/v1/ssh-keys/{id} declares for 404: [global/not-found]`},
		{name: "fabric rename's 404 is global/not-found", method: "POST", path: "/api/v1/fabric/abc", status: 404,
			header: jsonHeader, body: `{"error": {"code": "global/object-does-not-exist", "message": "m"}}`,
			wantFail: "declares for 404: [global/not-found]"},
		{name: "an attachment's 404 may be either code", method: "DELETE", path: "/api/v1/tickets/t/attachments/a", status: 404,
			header: jsonHeader, body: `{"error": {"code": "global/object-does-not-exist", "message": "m", "suggestion": "s"}}`},
		{name: "an attachment's 404 is one of its two codes", method: "DELETE", path: "/api/v1/tickets/t/attachments/a", status: 404,
			header: jsonHeader, body: `{"error": {"code": "global/duplicate", "message": "m", "suggestion": "s"}}`,
			wantFail: "[global/not-found global/object-does-not-exist]"},
		{name: "added code: fabric partition name taken", method: "POST", path: "/api/v1/fabric", status: 400,
			header: jsonHeader, body: `{"error": {"code": "global/duplicate", "message": "m", "request_id": "r"}}`},
		{name: "added code still needs the envelope", method: "POST", path: "/api/v1/fabric", status: 400,
			header: jsonHeader, body: `{"error": {"code": "global/quota-exceeded"}}`, wantFail: "message"},
		{name: "added code holds only where listed", method: "POST", path: "/api/v1/fabric/abc", status: 400,
			header: jsonHeader, body: `{"error": {"code": "global/quota-exceeded", "message": "m"}}`, wantFail: "global/invalid-parameters"},
		{name: "a 400 code of another operation", method: "DELETE", path: "/api/v1/ssh-keys/abc", status: 400,
			header: jsonHeader, body: `{"error": {"code": "global/duplicate", "message": "m"}}`, wantFail: "declares for 400: [global/invalid-parameters]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			spec.ValidateResponse(rec, tc.method, tc.path, tc.status, tc.header, []byte(tc.body))
			checkOutcome(t, rec, tc.wantFail)
		})
	}
}

func TestValidateRequest(t *testing.T) {
	spec := Load(t)
	cases := []struct {
		name, method, target, body, wantFail string
	}{
		{name: "create filesystem", method: "POST", target: "/api/v1/filesystems",
			body: `{"name": "my-filesystem", "region": "us-west-1"}`},
		{name: "create filesystem without region", method: "POST", target: "/api/v1/filesystems",
			body: `{"name": "my-filesystem"}`, wantFail: "region"},
		{name: "filesystem name pattern", method: "POST", target: "/api/v1/filesystems",
			body: `{"name": "1bad", "region": "us-west-1"}`, wantFail: "name"},
		{name: "delete filesystem has no body", method: "DELETE", target: "/api/v1/filesystems/abc"},
		{name: "unknown route", method: "POST", target: "/api/v1/nope", body: `{}`,
			wantFail: "not in the reference document"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://127.0.0.1:4000"+tc.target, nil)
			req.Header.Set("Authorization", "Bearer secret")
			rec := &recorder{TB: t}
			spec.ValidateRequest(rec, req, []byte(tc.body))
			checkOutcome(t, rec, tc.wantFail)
		})
	}
}

// TestSettle covers what Load does when the document cannot be had: skip
// when the shared workspace is absent, fail when an explicit path is wrong.
func TestSettle(t *testing.T) {
	missing := fmt.Errorf("open x.json: %w", fs.ErrNotExist)

	rec := &recorder{TB: t}
	if settle(rec, nil, "/nowhere/x.json", missing, false) != nil || len(rec.failures) > 0 ||
		!strings.Contains(rec.skipped, "/nowhere/x.json") {
		t.Errorf("absent default document: want skip naming the path, got skip %q, failures %q", rec.skipped, rec.failures)
	}

	rec = &recorder{TB: t}
	if settle(rec, nil, "/nowhere/x.json", missing, true); rec.skipped != "" || len(rec.failures) != 1 {
		t.Errorf("absent %s document: want one failure, got skip %q, failures %q", SpecEnv, rec.skipped, rec.failures)
	}

	rec = &recorder{TB: t}
	if settle(rec, nil, "x.json", errors.New("parsing x.json: bad"), false); rec.skipped != "" || len(rec.failures) != 1 {
		t.Errorf("unparsable document: want one failure, got skip %q, failures %q", rec.skipped, rec.failures)
	}
}

func checkOutcome(t *testing.T, rec *recorder, wantFail string) {
	t.Helper()
	switch {
	case wantFail == "" && len(rec.failures) > 0:
		t.Errorf("want pass, got failures:\n%s", strings.Join(rec.failures, "\n"))
	case wantFail != "" && len(rec.failures) == 0:
		t.Errorf("want a failure mentioning %q, got none", wantFail)
	case wantFail != "" && !strings.Contains(strings.Join(rec.failures, "\n"), wantFail):
		t.Errorf("want a failure mentioning %q, got:\n%s", wantFail, strings.Join(rec.failures, "\n"))
	default:
		for _, f := range rec.failures {
			t.Logf("rejected as expected: %s", f)
		}
	}
}

// The codes come from each operation's own response schema, so two
// operations with the same status can allow different codes.
func TestErrorCodes(t *testing.T) {
	spec := Load(t)
	for _, c := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"DELETE", "/api/v1/ssh-keys/abc", 404, "[global/not-found]"},
		{"DELETE", "/api/v1/filesystems/abc", 404, "[global/object-does-not-exist]"},
		{"GET", "/api/v1/tickets/t/attachments/a/download", 404, "[global/not-found global/object-does-not-exist]"},
		{"POST", "/api/v1/filesystems", 400, "[global/duplicate global/invalid-parameters global/quota-exceeded]"},
		{"GET", "/api/v1/filesystems", 404, "[global/not-found]"}, // through the alias
		{"GET", "/api/v1/regions", 400, "[]"},                     // undocumented status
		{"GET", "/api/v1/nope", 404, "[]"},                        // undocumented route
	} {
		if got := fmt.Sprint(spec.ErrorCodes(c.method, c.path, c.status)); got != c.want {
			t.Errorf("%s %s %d: %s, want %s", c.method, c.path, c.status, got, c.want)
		}
	}
}

// A document that only illustrates its codes with examples still names
// them; const and enum, where present, are what counts.
func TestAddCodes(t *testing.T) {
	for _, c := range []struct {
		schema openapi3.Schema
		want   string
	}{
		{openapi3.Schema{Const: "a"}, "map[a:true]"},
		{openapi3.Schema{Enum: []any{"a", "b"}}, "map[a:true b:true]"},
		{openapi3.Schema{Examples: []any{"x"}, Example: "y"}, "map[x:true y:true]"},
		{openapi3.Schema{Const: "a", Examples: []any{"x"}}, "map[a:true]"},
		{openapi3.Schema{}, "map[]"},
	} {
		codes := map[string]bool{}
		addCodes(&c.schema, codes)
		if got := fmt.Sprint(codes); got != c.want {
			t.Errorf("%+v: %s, want %s", c.schema, got, c.want)
		}
	}
}
