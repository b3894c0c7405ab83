package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxBody bounds what is read of one answer; an audit page is the largest
// at a few hundred KiB.
const maxBody = 8 << 20

// client sends one account's requests and records each one.
type client struct {
	http    *http.Client
	base    string // http://127.0.0.1:port
	key     string
	timeout time.Duration
	results []result
	windows *windowed // counts good answers as they come; nil counts nothing
}

// newTransport keeps one connection per client alive and talks to the
// server directly: no proxy from the environment, no compression.
func newTransport(clients int) *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        clients,
		MaxIdleConnsPerHost: clients,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
}

// do sends one request, bounded by the client's timeout, records what
// came back under op, and decodes a 2xx body into out (when not nil). It
// reports whether the answer was a 2xx. A request cut short because the
// run was interrupted is not recorded: it says nothing about the server.
func (c *client) do(ctx context.Context, op, method, path string, in, out any, expected ...expectedError) bool {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			panic(err) // the workload's own bodies always encode
		}
		body = bytes.NewReader(b)
	}
	reqCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, c.base+path, body)
	if err != nil {
		panic(err) // the workload's own paths always parse
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	status, header, raw, err := send(c.http, req)
	r := result{op: op, status: status, done: time.Now(), bytes: len(raw)}
	r.latency = r.done.Sub(start)
	if err != nil && ctx.Err() != nil {
		return false
	}
	timedOut := err != nil && errors.Is(reqCtx.Err(), context.DeadlineExceeded)
	var problem string
	var decodeErr error
	if err == nil {
		r.code, problem, decodeErr = checkBody(status, header.Get("Content-Type"), raw, out)
		if problem == "" && status == http.StatusServiceUnavailable && header.Get("Retry-After") == "" {
			problem = "503 without Retry-After: " + excerpt(raw)
		}
	}
	r.outcome = classify(status, r.code, problem, err, timedOut, expected)
	switch {
	case timedOut:
		r.status, r.detail = 0, fmt.Sprintf("%s %s: no answer within %s", method, path, c.timeout)
	case err != nil:
		r.status, r.detail = 0, fmt.Sprintf("%s %s: %v", method, path, err)
	case problem != "":
		r.detail = fmt.Sprintf("%s %s: %s", method, path, problem)
	case r.outcome.failed():
		r.detail = fmt.Sprintf("%s %s: %s", method, path, excerpt(raw))
	}
	c.results = append(c.results, r)
	defer func() { c.windows.add(c.results[len(c.results)-1]) }()
	if r.outcome != outcomeOK {
		return false
	}
	if decodeErr != nil {
		// Valid JSON of another shape than the workload expects: the
		// tool is out of date, not the server.
		c.results[len(c.results)-1].outcome = outcomeUnexpected
		c.results[len(c.results)-1].detail = fmt.Sprintf("%s %s: decode: %v", method, path, decodeErr)
		return false
	}
	return true
}

// send makes the request and reads the whole answer.
func send(hc *http.Client, req *http.Request) (status int, header http.Header, body []byte, err error) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return resp.StatusCode, resp.Header, body, err
}
