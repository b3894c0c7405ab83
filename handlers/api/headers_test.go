package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// request builds a request with the env's key and the given headers
// (pairs of name and value).
func (e *env) request(method, path string, body any, headers ...string) *http.Request {
	e.t.Helper()
	req := httptest.NewRequest(method, path, encodeBody(e.t, body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// doWith sends a request with the env's key and headers, checked like do.
func (e *env) doWith(method, path string, body any, headers ...string) *response {
	e.t.Helper()
	return e.send(e.request(method, path, body, headers...))
}

// sendAll sends the requests at once and returns the answers in order,
// each checked against the reference document.
func (e *env) sendAll(requests []*http.Request) []*response {
	e.t.Helper()
	out := make([]*response, len(requests))
	errs := make([]error, len(requests))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, req := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := e.app.Test(req, -1)
			if err != nil {
				errs[i] = err
				return
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			out[i], errs[i] = &response{t: e.t, Status: res.StatusCode, Header: res.Header, Body: body}, err
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			e.t.Fatalf("request %d: %v", i, err)
		}
		e.spec.ValidateResponse(e.t, requests[i].Method, requests[i].URL.RequestURI(), out[i].Status, out[i].Header, out[i].Body)
	}
	return out
}
