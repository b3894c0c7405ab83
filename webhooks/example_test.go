package webhooks_test

import (
	"encoding/json"
	"net/http"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"cloudplane/models"
	"cloudplane/webhooks"
)

// An example the owner sends of a type the endpoint does not subscribe to
// reaches a real receiver through the dispatcher, signed like any event,
// marked "test": true, with a ticket-shaped body; the log records it.
func TestExampleEventIsDelivered(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusOK))
	e, _, err := h.store.SetWebhook(h.ctx, h.owner, models.SetWebhookInput{URL: rc.URL + "/hooks",
		EventTypes: []string{models.EventTicketResolved}})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := standardwebhooks.NewWebhook(e.Secret)
	if err != nil {
		t.Fatal(err)
	}
	h.start()
	ev, err := h.store.SendExampleWebhookEvent(h.ctx, h.owner, e.ID, models.EventTicketCreated)
	if err != nil {
		t.Fatal(err)
	}
	got := rc.next(t)
	if err := verifier.VerifyIgnoringTimestamp(got.body, got.header); err != nil {
		t.Fatalf("signature: %v", err)
	}
	var body struct {
		ID   string
		Type string
		Test bool
		Data struct{ Object, Status string }
	}
	if err := json.Unmarshal(got.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.ID != ev.ID || got.header.Get("webhook-id") != ev.ID || body.Type != models.EventTicketCreated || !body.Test ||
		body.Data.Object != "ticket" || body.Data.Status != models.TicketNew {
		t.Fatalf("received %s", got.body)
	}
	if r := h.next(); !r.attempt.Succeeded || r.job.EventID != ev.ID {
		t.Fatalf("attempt %+v", r)
	}
}

// The endpoint's custom headers reach the receiver on every delivery;
// they cannot displace the headers cloudplane sets.
func TestCustomHeadersAreSent(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusOK))
	e, token := h.webhook(rc.URL + "/hooks")
	if _, err := h.store.SetWebhookHeaders(h.ctx, h.owner, e.ID, []models.WebhookHeader{{Name: "x-gateway-key", Value: "gw-123"},
		{Name: "X-Route", Value: "eu"}}); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.ticket("one")
	got := rc.next(t)
	if got.header.Get("X-Gateway-Key") != "gw-123" || got.header.Get("X-Route") != "eu" || got.header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("headers %v", got.header)
	}
	if r := h.next(); r.attempt.RequestHeaders["X-Gateway-Key"] != "gw-123" {
		t.Fatalf("the log's request headers %v", r.attempt.RequestHeaders)
	}
}
