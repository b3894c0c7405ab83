package views

import "time"

// Webhook is the owner's webhook settings page.
type Webhook struct {
	Set            bool // an endpoint exists
	URL            string
	TokenHint      string
	Enabled        bool
	DisabledReason string // why cloudplane disabled it, "" when the owner did
	DisabledAt     *time.Time
	Health         WebhookHealth
	Form           Form            // the URL form
	Message        string          // why the last action changed nothing
	Secrets        *WebhookSecrets // right after setting up or rotating: shown once
	CSRF           string
}

// WebhookSecrets are credentials just made, shown this once.
type WebhookSecrets struct {
	Token  string
	Secret string // the signing secret, when the endpoint is new
}

// WebhookHealth is how deliveries fared over the last day.
type WebhookHealth struct {
	Attempts    int64
	Succeeded   int64
	Rate        string // "97%", "" without attempts
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
	return v.Status != "" || v.EventType != "" || v.Account != "" || v.Ticket != ""
}

// RedeliverFailed is the form that queues an endpoint's failed deliveries
// again; nil where there is no one endpoint to redeliver to.
type RedeliverFailed struct {
	Account  string // support staff name the account
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
	eventTypeLabels = map[string]string{"ticket.created": "Ticket created", "ticket.status_changed": "Ticket status changed",
		"ticket.resolved": "Ticket resolved", "webhook.test": "Test event"}
	deliveryStatusKinds = map[string]string{"pending": Info, "succeeded": Success, "failed": Danger}
)

// EventTypeLabel names a webhook event type in words.
func EventTypeLabel(typ string) string { return labelOr(eventTypeLabels, typ) }

// DeliveryStatusLabel names a delivery status in words.
func DeliveryStatusLabel(status string) string { return Capitalize(status) }
