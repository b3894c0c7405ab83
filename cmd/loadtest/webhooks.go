package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
)

// webhookReceiver is the run's webhook receiver on loopback: every
// account's endpoint points at it, so each ticket the load creates or
// changes is delivered under the load, and the dispatcher's claims run
// beside the API's transactions as they do in production.
type webhookReceiver struct {
	*httptest.Server
	received atomic.Int64
	stop     chan struct{} // ends held requests
}

// newWebhookReceiver answers every delivery 204 at once or, when hang,
// holds it until the server gives up on it (a receiver that is down).
func newWebhookReceiver(hang bool) *webhookReceiver {
	r := &webhookReceiver{stop: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.received.Add(1)
		if hang {
			select {
			case <-req.Context().Done():
			case <-r.stop:
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return r
}

// claimFailedMessage is what the dispatcher logs when a claim of due
// deliveries fails (in either log format); under an ordinary load none may.
const claimFailedMessage = "webhooks: claiming deliveries failed"

// countsAsClaimFailure reports whether a server log line is a failed claim.
func countsAsClaimFailure(line string) bool { return strings.Contains(line, claimFailedMessage) }

// Close ends the requests it holds, then stops the server.
func (r *webhookReceiver) Close() {
	close(r.stop)
	r.Server.Close()
}
