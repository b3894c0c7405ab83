package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestClientRecordsWhatCameBack drives client.do against a stand-in
// server that answers each way a broken server can.
func TestClientRecordsWhatCameBack(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{"id":"abc"}}`))
	})
	mux.HandleFunc("/api/v1/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<h1>Bad gateway</h1>"))
	})
	unavailable := func(retryAfter string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"code":"provider/internal-unavailable","message":"away","request_id":"r1"}}`))
		}
	}
	mux.HandleFunc("/api/v1/unavailable", unavailable("1"))
	mux.HandleFunc("/api/v1/unavailable-no-retry", unavailable(""))
	mux.HandleFunc("/api/v1/hang", func(w http.ResponseWriter, r *http.Request) {
		select { // until the client gives up, or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)

	c := &client{http: srv.Client(), base: srv.URL, key: "cpk_test", timeout: 200 * time.Millisecond}
	var out idBody
	if !c.do(context.Background(), "ok", "GET", "/api/v1/ok", nil, &out) || out.Data.ID != "abc" {
		t.Errorf("ok: answered false or decoded %+v", out)
	}
	if c.do(context.Background(), "html", "GET", "/api/v1/html", nil, nil) {
		t.Error("html: reported a 2xx")
	}
	c.do(context.Background(), "unavailable", "GET", "/api/v1/unavailable", nil, nil)
	c.do(context.Background(), "no retry-after", "GET", "/api/v1/unavailable-no-retry", nil, nil)
	if c.do(context.Background(), "hang", "GET", "/api/v1/hang", nil, nil) {
		t.Error("hang: reported a 2xx")
	}
	interrupted, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	c.do(interrupted, "interrupted", "GET", "/api/v1/hang", nil, nil)

	want := []struct {
		op      string
		outcome outcome
		status  int
	}{{"ok", outcomeOK, 200}, {"html", outcomeBadBody, 502}, {"unavailable", outcomeServer, 503},
		// The contract's 503 tells the client when to come back.
		{"no retry-after", outcomeBadBody, 503}, {"hang", outcomeTimeout, 0}}
	if len(c.results) != len(want) {
		t.Fatalf("recorded %d results, want %d (the interrupted request is not one): %+v", len(c.results), len(want), c.results)
	}
	for i, w := range want {
		r := c.results[i]
		if r.op != w.op || r.outcome != w.outcome || r.status != w.status {
			t.Errorf("result %d = %+v, want %+v", i, r, w)
		}
	}
	if r := c.results[1]; r.code != "" || r.detail == "" {
		t.Errorf("html: code %q, detail %q", r.code, r.detail)
	}
	if r := c.results[2]; r.code != "provider/internal-unavailable" {
		t.Errorf("unavailable: code %q, want the envelope's", r.code)
	}
	if lat := c.results[4].latency; lat < c.timeout {
		t.Errorf("the timed-out request counts %s, less than the timeout it waited", lat)
	}
}
