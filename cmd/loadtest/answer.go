package main

import (
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// outcome says what one request's answer means for the run.
type outcome int

const (
	outcomeOK          outcome = iota // 2xx
	outcomeExpected                   // a 4xx the operation may meet under load (quota, capacity)
	outcomeConflict                   // 409 global/internal-error: the contract lets the caller retry
	outcomeUnavailable                // 503 provider/internal-unavailable while a planned outage allows it
	outcomeUnexpected                 // any other 4xx: the tool or the server is wrong
	outcomeServer                     // 5xx
	outcomeTimeout                    // no answer within -timeout
	outcomeNoAnswer                   // connection refused, reset, or closed
	outcomeBadBody                    // not JSON, or an error without the contract's envelope
)

// failed reports whether the outcome fails the run on its own.
func (o outcome) failed() bool { return o >= outcomeUnexpected }

// envelope is the contract's error body.
type envelope struct {
	Error *struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

// checkBody reports what is wrong with an answer under /api/, or "" when
// it is well formed: every answer is JSON, and every error (status 400 and
// up) is {"error": {"code", "message", "request_id"}}. It returns the
// error's code for errors. A success is decoded into out when out is not
// nil; decodeErr is a well-formed body of another shape than out's.
func checkBody(status int, contentType string, body []byte, out any) (code, problem string, decodeErr error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return "", fmt.Sprintf("Content-Type %q is not application/json", contentType), nil
	}
	if status < 400 && out != nil {
		// JSON v2 checks the whole body's syntax, the members it skips
		// included, in the one pass that decodes it. encoding/json scans
		// it once to check and again to decode: on a full audit page that
		// cost the load generator four times the CPU, taken from the 2
		// CPUs the server shares with it, more as the pages fill.
		var syntax *jsontext.SyntacticError
		if err := json.Unmarshal(body, out); errors.As(err, &syntax) {
			return "", "body is not JSON: " + excerpt(body), nil
		} else if err != nil {
			return "", "", err
		}
		return "", "", nil
	}
	if !jsontext.Value(body).IsValid() {
		return "", "body is not JSON: " + excerpt(body), nil
	}
	if status < 400 {
		return "", "", nil
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil || env.Error == nil {
		return "", "error without the {\"error\": ...} envelope: " + excerpt(body), nil
	}
	var missing []string
	for name, v := range map[string]string{"code": env.Error.Code, "message": env.Error.Message,
		"request_id": env.Error.RequestID} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return env.Error.Code, "error envelope without " + strings.Join(missing, ", ") + ": " + excerpt(body), nil
	}
	return env.Error.Code, "", nil
}

// expectedError is an error answer an operation may meet when many
// clients share an account: a quota or the capacity running out, or an
// object another request of the same account changed first.
type expectedError struct {
	status int
	code   string
}

// classify turns one answer into an outcome. transportErr is the client's
// error when there was no answer; timedOut says it was the deadline.
func classify(status int, code, bodyProblem string, transportErr error, timedOut bool, expected []expectedError) outcome {
	switch {
	case timedOut:
		return outcomeTimeout
	case transportErr != nil:
		return outcomeNoAnswer
	case bodyProblem != "":
		return outcomeBadBody
	case status >= 500:
		return outcomeServer
	case status >= 200 && status < 300:
		return outcomeOK
	case status == 409 && code == "global/internal-error":
		return outcomeConflict
	}
	for _, e := range expected {
		if e.status == status && e.code == code {
			return outcomeExpected
		}
	}
	return outcomeUnexpected
}

func excerpt(body []byte) string {
	const limit = 200
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty)"
	}
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}
