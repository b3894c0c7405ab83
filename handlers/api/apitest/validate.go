package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// aliases maps operations the reference document omits to the documented
// path whose contract they share. Lambda documents listing filesystems only
// under the deprecated GET /api/v1/file-systems, yet GET /api/v1/filesystems
// answers the identical body, and cloudplane serves both. An alias applies
// only when the document does not route the request itself, so a future
// document that documents the path directly takes precedence.
var aliases = map[string]string{
	"GET /api/v1/filesystems": "/api/v1/file-systems",
}

// addedCodes are codes the contract answers beside the ones the document
// declares for "METHOD documented-path status": the reference declares
// only global/invalid-parameters for a fabric partition's 400, but a taken
// name and a full quota get the codes filesystems use for them. A body
// with one of these codes is checked against the common error envelope;
// any other is checked against the document.
var addedCodes = map[string][]string{
	"POST /api/v1/fabric 400":      {"global/duplicate", "global/quota-exceeded"},
	"POST /api/v1/fabric/{id} 400": {"global/duplicate"},
	// Attachments count against per-account quotas, which the reference's
	// initiate does not mention: its 400 lists invalid parameters only.
	"POST /api/v1/tickets/{ticket_id}/attachments 400": {"global/quota-exceeded"},
	// A launch past a budget that stops launches (cloudplane's budgets).
	"POST /api/v1/instance-operations/launch 403": {"global/budget-exceeded"},
}

// extensions are cloudplane's own operations, which the reference cannot
// know; cloudplane's document describes them and checks their answers.
var extensions = map[string]bool{
	"GET /api/v1/openapi.json": true,
	"GET /api/v1/budget":       true,
	"PUT /api/v1/budget":       true,
	"GET /api/v1/usage":        true,
}

// rateLimitedCode is the error code of our 429 answers. 429 is cloudplane's
// own addition: the reference documents no 429 responses, so such bodies are
// checked against the common error envelope instead of the document.
const rateLimitedCode = "global/rate-limited"

// extensionCodes are the error answers of cloudplane's extensions
// (CONTRACT.md, "Extensions"; README), by status, which the reference
// cannot document: 412 for an If-Match that no longer holds, 409 for an
// Idempotency-Key whose first request still runs (on routes whose document
// lists no 409), and 403 for a read-only key's write. Like 429, such bodies
// are checked against the common error envelope with the code.
var extensionCodes = map[int]string{
	http.StatusPreconditionFailed: "global/precondition-failed",
	http.StatusConflict:           "global/internal-error",
	http.StatusForbidden:          "global/insufficient-scope",
}

// maxBodyInMessage bounds how much of a body a failure message quotes.
const maxBodyInMessage = 4096

// ValidateResponse fails tb unless the response is what the reference
// document allows for method and path (path may carry a query string):
// the operation must exist, status must be documented for it (or be 429 with
// a global/rate-limited error), and body must match the status's JSON schema.
// A missing Content-Type is taken as application/json; any other media type
// is an error, since every documented response is JSON.
func (s *Spec) ValidateResponse(tb testing.TB, method, path string, status int, header http.Header, body []byte) {
	if s == nil {
		return
	}
	tb.Helper()
	fail := func(format string, args ...any) {
		tb.Helper()
		tb.Errorf("%s %s -> %d: %s\nbody: %s", method, path, status, fmt.Sprintf(format, args...), quote(body))
	}

	req, err := http.NewRequest(method, "http://localhost"+path, nil)
	if err != nil {
		fail("bad request line: %v", err)
		return
	}
	if !s.own && extensions[method+" "+req.URL.Path] {
		return
	}
	which := "the reference document"
	if s.own {
		which = "cloudplane's document"
	}
	route, params, err := s.findRoute(req)
	if err != nil {
		fail("operation not in %s: %v", which, err)
		return
	}
	if err := checkJSONContentType(header); err != nil {
		fail("%v", err)
		return
	}
	checkedHeader := http.Header{"Content-Type": {"application/json"}}
	if s.own {
		// Our document describes every answer itself, headers included.
		checkedHeader = http.Header{}
		for name, values := range header {
			checkedHeader[name] = values
		}
		checkedHeader.Set("Content-Type", "application/json")
	} else if code, ok := envelopeOnly(route, status, body); ok {
		if err := checkErrorEnvelope(body, status, code); err != nil {
			fail("%v", err)
		}
		return
	}
	// Said on its own, before the schema's verdict, which buries a wrong
	// code among the branches of an anyOf.
	if err := checkDeclaredCode(route, status, body); err != nil {
		fail("%v", err)
		return
	}

	opts := &openapi3filter.Options{
		IncludeResponseStatus: true, // an undocumented status is a contract break
		MultiError:            true, // report every mismatch, not only the first
	}
	opts.WithCustomSchemaErrorFunc(shortSchemaError)
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: opts,
		},
		Status:  status,
		Header:  checkedHeader,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		fail("does not match %s %s in %s: %v", route.Method, route.Path, which, err)
	}
}

// ValidateRequest fails tb unless req, with body as its payload, is a valid
// call of a documented operation: path and query parameters and the JSON body
// must match. Authentication is not checked here. req is not modified; its
// own Body is ignored. A missing Content-Type is taken as application/json.
func (s *Spec) ValidateRequest(tb testing.TB, req *http.Request, body []byte) {
	if s == nil {
		return
	}
	tb.Helper()
	fail := func(format string, args ...any) {
		tb.Helper()
		tb.Errorf("request %s %s: %s\nbody: %s", req.Method, req.URL.RequestURI(), fmt.Sprintf(format, args...), quote(body))
	}

	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if r.Header.Get("Content-Type") == "" && len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	route, params, err := s.findRoute(r)
	if err != nil {
		fail("operation not in the reference document: %v", err)
		return
	}
	opts := &openapi3filter.Options{
		MultiError:         true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
	}
	opts.WithCustomSchemaErrorFunc(shortSchemaError)
	input := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		fail("does not match %s %s in the reference document: %v", route.Method, route.Path, err)
	}
}

// findRoute routes req by path alone, falling back to aliases.
func (s *Spec) findRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	route, params, err := s.router.FindRoute(req)
	if err == nil || s.own {
		return route, params, err
	}
	target, ok := aliases[req.Method+" "+req.URL.Path]
	if !ok {
		return nil, nil, err
	}
	aliased := req.Clone(req.Context())
	aliased.URL.Path = target
	aliased.URL.RawPath = ""
	return s.router.FindRoute(aliased)
}

// checkJSONContentType accepts an absent Content-Type (callers that only hold
// a body) and any spelling of application/json, e.g. with a charset.
func checkJSONContentType(header http.Header) error {
	ct := header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil || mediaType != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	return nil
}

// checkErrorEnvelope checks an undocumented error body has the documented
// error envelope ({"error": {...}} and nothing else) with code and a message.
func checkErrorEnvelope(body []byte, status int, code string) error {
	var envelope map[string]json.RawMessage
	if err := json.Unmarshal(body, &envelope); err != nil {
		return fmt.Errorf("%d body is not a JSON object: %v", status, err)
	}
	for key := range envelope {
		if key != "error" {
			return fmt.Errorf("%d body has unexpected top-level field %q", status, key)
		}
	}
	var apiErr struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(envelope["error"], &apiErr); err != nil || apiErr.Code == nil {
		return fmt.Errorf(`%d body lacks {"error": {"code": ...}}`, status)
	}
	if *apiErr.Code != code {
		return fmt.Errorf("%d error code %q, want %q", status, *apiErr.Code, code)
	}
	if apiErr.Message == nil || *apiErr.Message == "" {
		return fmt.Errorf("%d error lacks a message", status)
	}
	return nil
}

// envelopeOnly tells whether an answer is one the reference cannot
// describe (our 429s, our extensions' codes and the contract's added
// codes), to be checked against the common error envelope with the
// code it returns instead.
func envelopeOnly(route *routers.Route, status int, body []byte) (string, bool) {
	documented := route.Operation.Responses.Status(status) != nil
	if status == http.StatusTooManyRequests && !documented {
		return rateLimitedCode, true
	}
	if code, ok := extensionCodes[status]; ok && (!documented || errorCode(body) == code) {
		return code, true
	}
	if code := errorCode(body); slices.Contains(addedCodes[fmt.Sprintf("%s %s %d", route.Method, route.Path, status)], code) {
		return code, true
	}
	return "", false
}

// errorCode is the code of an error envelope, or "".
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// shortSchemaError names the failing JSON location and the reason, leaving
// out kin-openapi's default dump of the whole schema, which buries the cause.
// The JSON Schema 2020-12 validator (used for 3.1 documents) opens its reason
// with a line naming a placeholder schema URL; only the lines after it help.
func shortSchemaError(err *openapi3.SchemaError) string {
	reason := err.Reason
	if first, rest, ok := strings.Cut(reason, "\n"); ok && strings.HasPrefix(first, "jsonschema validation failed") {
		reason = strings.TrimSpace(rest)
	}
	return fmt.Sprintf("at /%s: %s", strings.Join(err.JSONPointer(), "/"), reason)
}

func quote(body []byte) string {
	if len(body) > maxBodyInMessage {
		return string(body[:maxBodyInMessage]) + "...(truncated)"
	}
	return string(body)
}
