package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"cloudplane/models"
)

// Every failure under /api/ is the JSON envelope, never HTML or empty.
func TestErrorEnvelopeEverywhere(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		code   models.Code
	}{
		{"unknown path under v1", http.MethodGet, "/api/v1/nope", "", http.StatusNotFound, models.CodeRouteNotFound},
		{"unknown path under api", http.MethodGet, "/api/v2/regions", "", http.StatusNotFound, models.CodeRouteNotFound},
		{"bare api", http.MethodGet, "/api", "", http.StatusNotFound, models.CodeRouteNotFound},
		{"wrong method", http.MethodDelete, "/api/v1/regions", "", http.StatusNotFound, models.CodeRouteNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+e.key)
			r := e.send(req)
			r.expectError(tc.status, tc.code)
			if want := tc.method + " " + tc.path; !strings.Contains(r.message(), want) {
				t.Fatalf("message %q does not name %q", r.message(), want)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("content type %q", ct)
			}
		})
	}
}

// The body limit is enforced by the HTTP server before routing, from the
// declared length, so this speaks HTTP over a real connection: it sends
// the headers of a body one byte over the limit and reads the answer.
func TestOversizedBodyIsInvalidParameters(t *testing.T) {
	e := newEnv(t)
	base := e.listen()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/filesystems HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", e.key, (1<<20)+1)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := &response{t: t, Status: res.StatusCode, Header: res.Header, Body: raw}
	r.expectError(http.StatusBadRequest, models.CodeInvalidParameters)
}

func TestSuccessCarriesRequestID(t *testing.T) {
	e := newEnv(t)
	r := e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
	if id := r.Header.Get("X-Request-Id"); !models.IsID(id) {
		t.Fatalf("X-Request-Id %q", id)
	}
	var regions []models.Region
	r.data(&regions)
	if len(regions) < 6 || regions[0].Name == "" || regions[0].Description == "" {
		t.Fatalf("regions %+v", regions)
	}
}
