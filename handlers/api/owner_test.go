package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Helpers for tests of the resources an account owns.

func (e *env) accountID() string { return *e.owner.AccountID }

// stranger creates the owner of another account and returns their key;
// call it once per env.
func (e *env) stranger() string {
	e.t.Helper()
	_, key := modelstest.Owner(e.t, e.store, "stranger@example.com")
	return key
}

// updateAccount applies an operator change to the env owner's account.
func (e *env) updateAccount(in models.UpdateAccountInput) {
	e.t.Helper()
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, e.owner.Email, in); err != nil {
		e.t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// parallel sends n requests at once, the i-th built by req, and counts the
// outcomes: "ok" for 200, else the error code. Every answer is checked
// against the reference document.
func (e *env) parallel(n int, req func(i int) (method, path string, body any)) map[string]int {
	e.t.Helper()
	type outcome struct {
		status int
		body   []byte
		err    error
	}
	requests := make([]*http.Request, n)
	for i := range requests {
		method, path, body := req(i)
		requests[i] = httptest.NewRequest(method, path, encodeBody(e.t, body))
		requests[i].Header.Set("Content-Type", "application/json")
		requests[i].Header.Set("Authorization", "Bearer "+e.key)
	}
	outcomes := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := e.app.Test(requests[i], -1)
			if err != nil {
				outcomes[i].err = err
				return
			}
			defer res.Body.Close()
			outcomes[i].status = res.StatusCode
			outcomes[i].body, outcomes[i].err = io.ReadAll(res.Body)
			e.validate(e.t, requests[i].Method, requests[i].URL.RequestURI(), res.StatusCode, res.Header, outcomes[i].body)
		}()
	}
	close(start)
	wg.Wait()
	counts := map[string]int{}
	for _, o := range outcomes {
		if o.err != nil {
			e.t.Fatalf("request failed: %v", o.err)
		}
		r := &response{t: e.t, Status: o.status, Body: o.body}
		if o.status == http.StatusOK {
			counts["ok"]++
		} else {
			counts[r.code()]++
		}
	}
	return counts
}

// Every endpoint of the account's resources refuses a missing key (401)
// and an inactive account (403), before looking at the request.
func TestOwnedResourcesNeedAnActiveAccount(t *testing.T) {
	e := newEnv(t)
	id := models.NewID()
	endpoints := []struct{ method, path string }{
		{http.MethodGet, "/api/v1/filesystems"},
		{http.MethodGet, "/api/v1/file-systems"},
		{http.MethodPost, "/api/v1/filesystems"},
		{http.MethodDelete, "/api/v1/filesystems/" + id},
		{http.MethodGet, "/api/v1/firewall-rules"},
		{http.MethodPut, "/api/v1/firewall-rules"},
		{http.MethodGet, "/api/v1/firewall-rulesets"},
		{http.MethodPost, "/api/v1/firewall-rulesets"},
		{http.MethodGet, "/api/v1/firewall-rulesets/global"},
		{http.MethodPatch, "/api/v1/firewall-rulesets/global"},
		{http.MethodGet, "/api/v1/firewall-rulesets/" + id},
		{http.MethodPatch, "/api/v1/firewall-rulesets/" + id},
		{http.MethodDelete, "/api/v1/firewall-rulesets/" + id},
		{http.MethodPost, "/api/v1/fabric"},
		{http.MethodPost, "/api/v1/fabric/" + id},
		{http.MethodDelete, "/api/v1/fabric/" + id},
	}
	for _, ep := range endpoints {
		e.doAs("", ep.method, ep.path, `{}`).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
	}
	e.updateAccount(models.UpdateAccountInput{Status: ptr(models.AccountInactive)})
	for _, ep := range endpoints {
		e.do(ep.method, ep.path, `{}`).expectError(http.StatusForbidden, models.CodeAccountInactive)
	}
}
