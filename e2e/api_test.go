package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
)

// apiCall is one request to /api/v1 with a key, as a script would send it.
type apiCall struct {
	status int
	body   []byte
}

// api sends method path (under /api/v1) with the key as a Bearer token
// and body as JSON when it is not nil.
func (s *suite) api(t *testing.T, key, method, path string, body any) apiCall {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+"/api/v1"+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return apiCall{status: resp.StatusCode, body: b}
}

// ok fails unless the call answered want, and decodes the body's "data"
// into out when out is not nil.
func (c apiCall) ok(t *testing.T, want int, out any) {
	t.Helper()
	if c.status != want {
		t.Fatalf("API answered %d, want %d: %s", c.status, want, c.body)
	}
	if out == nil {
		return
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(c.body, &env); err != nil {
		t.Fatalf("API body is not JSON: %v: %s", err, c.body)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		t.Fatalf("API data does not decode into %T: %v: %s", out, err, c.body)
	}
}

// errorCode is the code of an error answer, "" for anything else.
func (c apiCall) errorCode() string {
	var env struct {
		Error struct{ Code string }
	}
	_ = json.Unmarshal(c.body, &env)
	return env.Error.Code
}

// auditEventCount pages through the account's whole audit log.
func (s *suite) auditEventCount(t *testing.T, key string) int {
	t.Helper()
	n, token := 0, ""
	for {
		path := "/audit-events"
		if token != "" {
			path += "?page_token=" + url.QueryEscape(token)
		}
		c := s.api(t, key, http.MethodGet, path, nil)
		if c.status != http.StatusOK {
			t.Fatalf("GET %s answered %d: %s", path, c.status, c.body)
		}
		var page struct {
			Data      []json.RawMessage `json:"data"`
			PageToken *string           `json:"page_token"`
		}
		if err := json.Unmarshal(c.body, &page); err != nil {
			t.Fatal(err)
		}
		n += len(page.Data)
		if page.PageToken == nil || *page.PageToken == "" {
			return n
		}
		token = *page.PageToken
	}
}
