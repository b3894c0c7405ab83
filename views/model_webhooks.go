package views

import (
	"strconv"
	"strings"
	"time"
)

// Webhooks is the owner's list of endpoints and the form that adds one.
type Webhooks struct {
	Endpoints  []WebhookRow
	Alerts     []Alert         // endpoints cloudplane disabled, or failing
	Form       Form            // the new endpoint's URL and event types
	EventTypes []Option        // checked as the form was sent
	Secrets    *WebhookSecrets // right after adding one: shown once
	Full       bool            // the account has as many endpoints as it may
	Max        int
	CSRF       string
}

// WebhookRow is one endpoint in the list.
type WebhookRow struct {
	ID         string
	URL        string
	EventTypes []string
	Enabled    bool
	Failing    bool
	Rate       string // over the last day; "" without attempts
}

// Webhook is one endpoint's page.
type Webhook struct {
	ID             string
	URL            string
	EventTypes     []Option // checked: the types it receives
	TokenHint      string
	Enabled        bool
	DisabledReason string // why cloudplane disabled it, "" when the owner did
	DisabledAt     *time.Time
	RotatingUntil  *time.Time // while the previous signing secret still signs
	Health         WebhookHealth
	Chart          WebhookChart    // attempts hour by hour over the last day
	ExampleTypes   []Option        // the types "Send an example" offers
	ExampleType    string          // the type chosen last
	HeadersForm    Form            // custom headers: header_name_N, header_value_N
	HeaderRows     int             // how many rows the headers form has
	Form           Form            // the URL and event types form
	Message        string          // why the last action changed nothing
	Secrets        *WebhookSecrets // right after rotating or revealing: shown once
	CSRF           string
}

// WebhookSecrets are credentials just made or revealed, shown this once.
type WebhookSecrets struct {
	Token  string // "" when the token did not change
	Secret string // the signing secret, when new or revealed
	Note   string // what the secret shown is: new, rotated, revealed
	// RotatingUntil, right after a rotation, is until when the previous
	// secret signs too; said beside the new one.
	RotatingUntil *time.Time
}

// WebhookSecretReveal is the page that asks for the password before
// showing an endpoint's signing secret.
type WebhookSecretReveal struct {
	ID     string
	URL    string
	Form   Form
	Secret string // shown once the password is confirmed
	CSRF   string
}

// WebhookHealth is how deliveries fared over the last day.
type WebhookHealth struct {
	Attempts    int64
	Succeeded   int64
	Rate        string // "97%", "" without attempts
	Mean        string // latency, "" without attempts
	Max         string
	LastError   string
	LastErrorAt *time.Time
	Failing     bool
}

// Deliveries is the webhook delivery log.
type Deliveries struct {
	Support    bool
	Rows       []Delivery
	Status     string // the filters as given
	EventType  string
	Account    string
	Ticket     string
	Endpoint   string // an endpoint id
	Event      string // an event id (webhook-id)
	Endpoints  []Option
	Form       Form // problems with the filters
	Self       string
	NextHref   string
	Paged      bool
	PollEvery  string // "" unless a listed delivery is pending
	Redeliver  *RedeliverFailed
	CSRF       string
	EventTypes []Option
}

// Filtered reports whether any filter is set.
func (v Deliveries) Filtered() bool {
	return v.Status != "" || v.EventType != "" || v.Account != "" || v.Ticket != "" || v.Endpoint != "" || v.Event != ""
}

// RedeliverFailed is the form that queues an endpoint's failed deliveries
// again; nil where there is no one endpoint to redeliver to.
type RedeliverFailed struct {
	Account  string // support staff name the account
	Endpoint string // the endpoint whose failures are queued again
	Form     Form
	Disabled bool // the endpoint is off, so nothing can be redelivered
}

// Delivery is one event on its way to an endpoint, as the log lists it.
type Delivery struct {
	ID             string
	EventType      string
	Status         string
	Attempts       int
	LastStatusCode int
	LastError      string
	TicketID       string
	AccountID      string
	AccountEmail   string // support views: the account owner's email
	URL            string
	Created        time.Time
	Completed      *time.Time
	NextAttempt    time.Time
	EndpointID     string
}

// DeliveryDetail is one delivery's page: what was sent and every attempt.
type DeliveryDetail struct {
	Delivery
	EventID        string
	Support        bool
	RequestBody    string
	RequestHeaders []Header
	HeadersFrom    int       // the attempt the headers are from; 0 before any
	AttemptLog     []Attempt // newest first
	PollEvery      string    // "" once the delivery has settled
	Now            time.Time // for the next attempt's relative time
	Message        string    // why a redelivery was refused
	CSRF           string
}

// Header is one HTTP header line.
type Header struct {
	Name  string
	Value string
}

// Attempt is one try of a delivery.
type Attempt struct {
	Number     int
	Started    time.Time
	Duration   string
	URL        string
	RemoteAddr string
	StatusCode int
	Headers    []Header
	Body       string
	BodyNote   string // the body was cut, or is not text
	ErrorKind  string
	Error      string
	Succeeded  bool
}

var (
	eventTypeAbouts = map[string]string{
		"ticket.created":        "A ticket was opened, from the dashboard or the API. The data is the ticket as it was created.",
		"ticket.status_changed": "A ticket moved to another status that is still open (for example new to open, or open to pending).",
		"ticket.resolved":       "A ticket became solved or closed.",
		"webhook.test":          "Sent when you press Send an example with this type, to check that your server receives and verifies events.",
		"billing.budget_threshold": "The account's spend this month reached 50%, 80% or 100% of its budget, or its forecast went over it: " +
			"each once a month. Amounts are whole cents.",
	}
	eventTypeLabels = map[string]string{"ticket.created": "Ticket created", "ticket.status_changed": "Ticket status changed",
		"ticket.resolved": "Ticket resolved", "webhook.test": "Test event", "billing.budget_threshold": "Budget threshold reached"}
	deliveryStatusKinds = map[string]string{"pending": Info, "succeeded": Success, "failed": Danger}
)

// EventTypeLabel names a webhook event type in words.
func EventTypeLabel(typ string) string { return labelOr(eventTypeLabels, typ) }

// EventTypeAbout says when an event of typ is sent.
func EventTypeAbout(typ string) string { return eventTypeAbouts[typ] }

// WebhookEventCatalogue lists every event type with an example body.
type WebhookEventCatalogue struct {
	Types []WebhookEventExample
}

// WebhookEventExample is one event type and the body a delivery of it
// sends.
type WebhookEventExample struct {
	Type    string
	Payload string // indented JSON
}

// DeliveryStatusLabel names a delivery status in words.
func DeliveryStatusLabel(status string) string { return Capitalize(status) }

// Relative says how far t is from now, to the second: "in 4 min 12 s",
// "12 s ago", "now".
func Relative(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	ago := d < 0
	if ago {
		d = -d
	}
	if d == 0 {
		return "now"
	}
	var parts []string
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "min"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			parts = append(parts, strconv.FormatInt(int64(n), 10)+" "+u.name)
			d -= n * u.d
		}
	}
	if ago {
		return strings.Join(parts, " ") + " ago"
	}
	return "in " + strings.Join(parts, " ")
}
