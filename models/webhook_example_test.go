package models_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// keys is the sorted top-level keys of a JSON object.
func keys(t *testing.T, raw string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The catalogue's example of a ticket event has exactly the keys a real
// event of that type has, envelope and data alike, because both come from
// the same code.
func TestExampleWebhookEventMatchesRealEvents(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/")
	f.incident(f.owner, "Disk full")
	var real models.WebhookEvent
	if err := f.store.DB().Where("type = ?", models.EventTicketCreated).Take(&real).Error; err != nil {
		t.Fatal(err)
	}
	example, err := models.ExampleWebhookEvent(models.EventTicketCreated, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(t, example), keys(t, real.Payload); !slices.Equal(got, want) {
		t.Fatalf("example keys %v, real %v", got, want)
	}
	var ex, re struct{ Data json.RawMessage }
	_ = json.Unmarshal([]byte(example), &ex)
	_ = json.Unmarshal([]byte(real.Payload), &re)
	if got, want := keys(t, string(ex.Data)), keys(t, string(re.Data)); !slices.Equal(got, want) {
		t.Fatalf("example data keys %v, real %v", got, want)
	}
	if strings.Contains(example, `"test"`) {
		t.Fatalf("the catalogue's example is marked as a test: %s", example)
	}
	for _, typ := range models.WebhookEventTypes {
		if p, err := models.ExampleWebhookEvent(typ, f.clock.Now()); err != nil || !strings.Contains(p, `"type": "`+typ+`"`) {
			t.Fatalf("%s: %v %s", typ, err, p)
		}
	}
	if _, err := models.ExampleWebhookEvent("ticket.deleted", f.clock.Now()); models.ErrorCode(err) != models.CodeInvalidParameters {
		t.Fatalf("unknown type: %v", err)
	}
}

// An example of a type the endpoint does not subscribe to still goes to
// it (and only it), marked as a test, through the outbox; an account may
// send MaxWebhookExamples in WebhookExampleWindow; members may not.
func TestSendExampleWebhookEvent(t *testing.T) {
	f := newTicketFixture(t)
	e, _, err := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/resolved",
		EventTypes: []string{models.EventTicketResolved}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.CreateWebhookEndpoint(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/other"}); err != nil {
		t.Fatal(err)
	}
	ev, err := f.store.SendExampleWebhookEvent(f.ctx, f.owner, e.ID, models.EventTicketCreated)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != models.EventTicketCreated || ev.TicketID != nil || !strings.Contains(ev.Payload, `"test":true`) {
		t.Fatalf("%+v", ev)
	}
	if n := f.count(&models.WebhookDelivery{}, "event_id = ?", ev.ID); n != 1 {
		t.Fatalf("%d deliveries", n)
	}
	if n := f.count(&models.WebhookDelivery{}, "event_id = ? AND endpoint_id = ?", ev.ID, e.ID); n != 1 {
		t.Fatal("not delivered to the chosen endpoint")
	}
	var audit models.AuditEvent
	if err := f.store.DB().Where("resource_name = ? AND action = ?", "webhook", "tested").Take(&audit).Error; err != nil {
		t.Fatal(err)
	}
	if got := audit.AdditionalDetails.Map()["event_type"]; got != models.EventTicketCreated {
		t.Fatalf("audit details %v", audit.AdditionalDetails.Map())
	}
	_, err = f.store.SendExampleWebhookEvent(f.ctx, f.owner, e.ID, "ticket.deleted")
	expectCode(t, err, models.CodeInvalidParameters, "event_type")
	_, err = f.store.SendExampleWebhookEvent(f.ctx, f.other, e.ID, models.EventTicketCreated)
	expectCode(t, err, models.CodeNotFound, "")

	for i := 1; i < models.MaxWebhookExamples; i++ {
		f.clock.Advance(time.Second)
		if _, err := f.store.SendExampleWebhookEvent(f.ctx, f.owner, e.ID, models.EventWebhookTest); err != nil {
			t.Fatalf("example %d: %v", i+1, err)
		}
	}
	_, err = f.store.SendExampleWebhookEvent(f.ctx, f.owner, e.ID, models.EventTicketResolved)
	expectCode(t, err, models.CodeRateLimited, "")
	f.clock.Advance(models.WebhookExampleWindow)
	if _, err := f.store.SendExampleWebhookEvent(f.ctx, f.owner, e.ID, models.EventTicketResolved); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// The chart counts each hour's successes and failures apart, oldest
// first, and leaves out attempts older than the window.
func TestWebhookChart(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/")
	f.clock.Set(time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC))
	f.incident(f.owner, "old")
	f.attempt(500, false) // 10:30 on the 2nd: outside the window
	f.clock.Set(time.Date(2026, 3, 3, 9, 15, 0, 0, time.UTC))
	f.incident(f.owner, "one")
	f.attempt(500, true)
	f.clock.Advance(time.Minute)
	f.attempt(200, false)
	f.clock.Set(time.Date(2026, 3, 3, 10, 5, 0, 0, time.UTC))
	f.incident(f.owner, "two")
	f.attempt(200, false)
	hours, err := f.store.WebhookChart(f.ctx, f.owner, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 24 || !hours[23].Start.Equal(time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)) ||
		!hours[0].Start.Equal(time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("%d hours from %v to %v", len(hours), hours[0].Start, hours[len(hours)-1].Start)
	}
	var total int64
	for _, h := range hours {
		total += h.Succeeded + h.Failed
	}
	if total != 3 || hours[22].Succeeded != 1 || hours[22].Failed != 1 || hours[23].Succeeded != 1 || hours[23].Failed != 0 {
		t.Fatalf("%+v", hours[20:])
	}
	if _, err := f.store.WebhookChart(f.ctx, f.other, e.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("another account's chart: %v", err)
	}
}
