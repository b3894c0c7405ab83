package main

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckBody(t *testing.T) {
	const envelope = `{"error":{"code":"global/quota-exceeded","message":"Quota reached","request_id":"r1"}}`
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		code        string
		bad         bool
	}{
		{"success", 200, "application/json", `{"data":[]}`, "", false},
		{"charset parameter", 200, "application/json; charset=utf-8", `{"data":[]}`, "", false},
		{"error envelope", 400, "application/json", envelope, "global/quota-exceeded", false},
		{"html error page", 500, "text/html; charset=utf-8", "<html>Internal Server Error</html>", "", true},
		{"plain text", 404, "text/plain", "Cannot GET /api/v1/x", "", true},
		{"no content type", 200, "", `{"data":[]}`, "", true},
		{"empty body", 200, "application/json", "", "", true},
		{"truncated json", 200, "application/json", `{"data":[`, "", true},
		{"bad json in a member not decoded", 200, "application/json", `{"data":[{"a":tru}],"page_token":null}`, "", true},
		{"trailing text", 200, "application/json", `{"data":[]} x`, "", true},
		{"two values", 200, "application/json", `{"data":[]}{}`, "", true},
		{"error without envelope", 400, "application/json", `{"message":"bad"}`, "", true},
		{"error without request id", 400, "application/json",
			`{"error":{"code":"global/invalid-parameters","message":"bad"}}`, "global/invalid-parameters", true},
		{"error null", 500, "application/json", `{"error":null}`, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The same verdict whether or not the caller decodes the body.
			for _, out := range []any{nil, &map[string]any{}, &struct {
				PageToken *string `json:"page_token"`
			}{}} {
				code, problem, decodeErr := checkBody(tc.status, tc.contentType, []byte(tc.body), out)
				if (problem != "") != tc.bad || decodeErr != nil {
					t.Errorf("decoding into %T: problem = %q, decode error %v, want bad=%v", out, problem, decodeErr, tc.bad)
				}
				if code != tc.code {
					t.Errorf("decoding into %T: code = %q, want %q", out, code, tc.code)
				}
			}
		})
	}
}

// A well-formed answer of another shape than the workload decodes is the
// tool's fault, not the server's: no problem, a decode error.
func TestCheckBodyOtherShape(t *testing.T) {
	var out struct {
		PageToken *string `json:"page_token"`
	}
	_, problem, decodeErr := checkBody(200, "application/json", []byte(`{"page_token": 7}`), &out)
	if problem != "" || decodeErr == nil {
		t.Fatalf("problem %q, decode error %v", problem, decodeErr)
	}
}

func TestClassify(t *testing.T) {
	quota := []expectedError{quotaExceeded}
	refused := errors.New("connection refused")
	for _, tc := range []struct {
		name     string
		status   int
		code     string
		problem  string
		err      error
		timedOut bool
		expected []expectedError
		want     outcome
	}{
		{"ok", 200, "", "", nil, false, nil, outcomeOK},
		{"accepted", 202, "", "", nil, false, nil, outcomeOK},
		{"expected quota", 400, "global/quota-exceeded", "", nil, false, quota, outcomeExpected},
		{"quota where not expected", 400, "global/quota-exceeded", "", nil, false, nil, outcomeUnexpected},
		{"same status other code", 400, "global/invalid-parameters", "", nil, false, quota, outcomeUnexpected},
		{"rate limited", 429, "global/rate-limited", "", nil, false, quota, outcomeUnexpected},
		{"conflict", 409, "global/internal-error", "", nil, false, nil, outcomeConflict},
		{"unavailable", 503, "provider/internal-unavailable", "", nil, false, nil, outcomeServer},
		{"internal", 500, "global/internal-error", "", nil, false, nil, outcomeServer},
		{"malformed wins over status", 200, "", "body is not JSON", nil, false, nil, outcomeBadBody},
		{"timeout", 0, "", "", refused, true, nil, outcomeTimeout},
		{"refused", 0, "", "", refused, false, nil, outcomeNoAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(tc.status, tc.code, tc.problem, tc.err, tc.timedOut, tc.expected)
			if got != tc.want {
				t.Errorf("classify = %d, want %d", got, tc.want)
			}
		})
	}
	for o := outcomeOK; o <= outcomeBadBody; o++ {
		want := o != outcomeOK && o != outcomeExpected && o != outcomeConflict && o != outcomeUnavailable
		if o.failed() != want {
			t.Errorf("outcome %d: failed() = %v, want %v", o, o.failed(), want)
		}
	}
}

// BenchmarkCheckBodyAuditPage checks and decodes a full audit page (100
// events, 57 KB as the load test's late pages are) as listAuditEvents does.
func BenchmarkCheckBodyAuditPage(b *testing.B) {
	const event = `{"event_id":"0195f2a1b2c3d4e5f6a7b8c9d0e1f2a3","event_time":"2026-11-28T11:05:09.123456Z",` +
		`"service_name":"cloud","resource_name":"filesystem","action":"created","catalog_version":"1",` +
		`"actor_lrn":"lrn:lambda:iam::user/0195f2a1b2c3d4e5f6a7b8c9d0e1f2a3","resource_lrns":` +
		`["lrn:lambda:cloud:us-east-1:0195f2a1b2c3d4e5f6a7b8c9d0e1f2a3:filesystem/0195f2a1b2c3d4e5f6a7b8c9d0e1f2a3"],` +
		`"resource_owner_lrn":null,"request_api_key_lrn":null,"additional_details":{"name":"lt-12-345","region":"us-east-1"}}`
	page := []byte(`{"data":[` + strings.Repeat(event+",", 99) + event + `],"page_token":"abc"}`)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		var out struct {
			PageToken *string `json:"page_token"`
		}
		if _, problem, err := checkBody(200, "application/json", page, &out); problem != "" || err != nil || out.PageToken == nil {
			b.Fatal(problem, err)
		}
	}
}
