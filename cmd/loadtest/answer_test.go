package main

import (
	"errors"
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
		{"error without envelope", 400, "application/json", `{"message":"bad"}`, "", true},
		{"error without request id", 400, "application/json",
			`{"error":{"code":"global/invalid-parameters","message":"bad"}}`, "global/invalid-parameters", true},
		{"error null", 500, "application/json", `{"error":null}`, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, problem := checkBody(tc.status, tc.contentType, []byte(tc.body))
			if (problem != "") != tc.bad {
				t.Errorf("problem = %q, want bad=%v", problem, tc.bad)
			}
			if code != tc.code {
				t.Errorf("code = %q, want %q", code, tc.code)
			}
		})
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
		want := o != outcomeOK && o != outcomeExpected && o != outcomeConflict
		if o.failed() != want {
			t.Errorf("outcome %d: failed() = %v, want %v", o, o.failed(), want)
		}
	}
}
