package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// The catalogue lists every event type with a body made by the outbox's
// own code, so the example carries every field a real event does.
func TestWebhookEventCatalogue(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/webhook").contains(`href="/webhook-events"`)
	res := b.get("/webhook-events").expect(http.StatusOK).contains("Event catalogue", `&#34;api_version&#34;: &#34;`+models.WebhookAPIVersion,
		`&#34;instance_ip&#34;`, `&#34;request_type&#34;: &#34;incident&#34;`)
	for _, typ := range models.WebhookEventTypes {
		res.contains(`&#34;type&#34;: &#34;` + typ + `&#34;`)
	}
	if strings.Contains(res.Body, `&#34;test&#34;: true`) {
		t.Fatal("the catalogue's examples are marked as tests")
	}
}

// An example of any type goes to the endpoint and into its log, marked
// as a test; past the account's budget the page says why and keeps the
// chosen type.
func TestSendWebhookExample(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	page := "/webhook/" + ep.ID
	b.get(page).contains(`<option value="ticket.resolved"`, `<option value="webhook.test" selected`)
	to := "/webhook-deliveries?event_type=ticket.resolved&endpoint=" + ep.ID
	b.post(page+"/test", url.Values{"event_type": {"ticket.resolved"}}).expect(http.StatusSeeOther).redirectsTo(to)
	b.get(to).contains("Example ticket.resolved event queued.", "Ticket resolved", ">Pending</span>")
	var ev models.WebhookEvent
	if err := e.store.DB().Where("type = ?", models.EventTicketResolved).Take(&ev).Error; err != nil || !strings.Contains(ev.Payload, `"test":true`) {
		t.Fatalf("%+v %v", ev, err)
	}
	b.post(page+"/test", url.Values{"event_type": {"ticket.deleted"}}).expect(http.StatusUnprocessableEntity).
		contains("Nothing was changed", "Event type must be one of")
	for i := 1; i < models.MaxWebhookExamples; i++ {
		e.clock.Advance(time.Second)
		b.post(page+"/test", url.Values{"event_type": {"webhook.test"}}).expect(http.StatusSeeOther)
	}
	b.post(page+"/test", url.Values{"event_type": {"ticket.created"}}).expect(http.StatusTooManyRequests).
		contains("Too many examples sent", `<option value="ticket.created" selected`)
}

// The endpoint page's last day is one card: rates, the latest error and a
// chart drawn as SVG with a description and a table of the same numbers.
func TestWebhookDeliveryChart(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	page := "/webhook/" + ep.ID
	b := e.signedIn("ada@example.com")
	b.get(page).contains(`<svg class="delivery-chart-svg"`, "No delivery attempts in the last 24 hours.").lacks("Show as a table", "<script>")
	e.ticket(ada, "one")
	e.answer(503, true)
	e.clock.Advance(time.Hour)
	e.answer(200, false)
	res := b.get(page).contains(`role="img"`, `aria-labelledby="chart-title chart-desc"`,
		"1 attempt succeeded and 1 failed in the last 24 hours", "Show as a table", `class="chart-fail"`,
		"Last error", "HTTP Service Unavailable")
	if n := strings.Count(res.Body, `<g class="chart-hour">`); n != 24 {
		t.Fatalf("%d bars", n)
	}
	if strings.Count(res.Body, `aria-labelledby="health-heading"`) != 1 || strings.Contains(res.Body, `class="tile tile-wide"`) {
		t.Fatal("the last error is not in the health card")
	}
}

// Custom headers are edited in rows on the endpoint's page; a reserved
// name is refused beside its row with the values kept; clearing every
// row removes them.
func TestWebhookCustomHeaders(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	ep := e.webhook(ada, "https://hooks.example.com/")
	b := e.signedIn("ada@example.com")
	page := "/webhook/" + ep.ID
	b.get(page).contains("Custom headers", `name="header_name_0"`, `name="header_value_1"`).lacks(`name="header_name_2"`)
	b.post(page+"/headers", url.Values{"header_name_0": {"x-gateway-key"}, "header_value_0": {"gw-1"},
		"header_name_1": {"Host"}, "header_value_1": {"evil.example"}}).expect(http.StatusUnprocessableEntity).
		fieldError("header_name_1", "Host is set by cloudplane or by HTTP itself; choose another name.").
		contains(`value="gw-1"`, `value="evil.example"`)
	if got, _ := e.store.WebhookEndpoint(context.Background(), ada.Actor(), ep.ID); len(got.Headers) != 0 {
		t.Fatalf("a refused form saved %v", got.Headers)
	}
	b.post(page+"/headers", url.Values{"header_name_0": {"x-gateway-key"}, "header_value_0": {"gw-1"}}).
		expect(http.StatusSeeOther).redirectsTo(page)
	b.get(page).contains("Custom headers saved.", `value="X-Gateway-Key"`, `value="gw-1"`, `name="header_name_2"`)
	b.get("/").contains("Webhook custom headers changed")
	b.post(page+"/headers", url.Values{"header_name_0": {""}, "header_value_0": {""}}).expect(http.StatusSeeOther)
	b.get(page).contains("Custom headers removed.").lacks(`value="X-Gateway-Key"`)
}
