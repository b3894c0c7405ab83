package views

import "time"

// Navigation items of the support pages.
const (
	NavTickets    = "tickets"
	NavWebhooks   = "webhooks"
	NavDeliveries = "deliveries"
)

// Ticket statuses and types as the pages name them; the domain's values
// are the keys.
var (
	ticketStatusLabels = map[string]string{"new": "New", "open": "Open", "pending": "Pending",
		"on_hold": "On hold", "solved": "Solved", "closed": "Closed"}
	ticketStatusKinds = map[string]string{"new": Info, "open": Info, "pending": Warning,
		"on_hold": Warning, "solved": Success, "closed": Neutral}
	ticketTypeLabels = map[string]string{"incident": "Incident", "service_request": "Service request",
		"automated_event": "Automated event"}
	severityLabels = map[string]string{"sev_1": "Sev 1", "sev_2": "Sev 2", "sev_3": "Sev 3"}
	severityKinds  = map[string]string{"sev_1": Danger, "sev_2": Warning, "sev_3": Info}
)

// TicketStatusLabel names a ticket status in words.
func TicketStatusLabel(status string) string { return labelOr(ticketStatusLabels, status) }

// TicketTypeLabel names a ticket type in words.
func TicketTypeLabel(typ string) string { return labelOr(ticketTypeLabels, typ) }

// SeverityLabel names a severity in words.
func SeverityLabel(sev string) string { return labelOr(severityLabels, sev) }

func labelOr(labels map[string]string, key string) string {
	if l, ok := labels[key]; ok {
		return l
	}
	return key
}

// TicketList is the tickets page: an owner's tickets, or the support
// queue of every account's.
type TicketList struct {
	Support  bool
	Tickets  []TicketRow
	Status   string // the filters as given
	Severity string
	Account  string
	Queue    Queue    // support staff's further filters and order
	Form     Form     // problems with the filters
	Statuses []Option // the status filter's choices
	NextHref string   // "" on the last page
	Paged    bool     // a page after the first
}

// Filtered reports whether any filter is set.
func (v TicketList) Filtered() bool {
	return v.Status != "" || v.Severity != "" || v.Account != "" || v.Queue.Filtered()
}

// TicketRow is one ticket of a list.
type TicketRow struct {
	ID           string
	Subject      string
	Status       string
	Type         string
	Severity     string // "" without one
	Requester    string // the email of who opened it
	AccountID    string
	AccountEmail string // support lists: the account owner's email
	Assignee     string // support lists: the assignee's email, "" for nobody
	CommentCount int    // after the description
	Waiting      string // support lists: how long the customer waits ("2 h"), "" when support spoke last
	Created      time.Time
	Updated      time.Time
}

// NewTicket is the form that opens a ticket.
type NewTicket struct {
	Form Form
	CSRF string
}

// Ticket is one ticket's page: its details, its conversation and what
// the viewer may do with it.
type Ticket struct {
	TicketRow
	Source      string
	InstanceID  string
	InstanceIP  string
	Resolved    *time.Time
	Thread      []ThreadItem // comments and activities, oldest first
	Desk        *Desk        // support staff only
	Support     bool
	Moves       []string // the statuses support staff may move it to
	CanSolve    bool     // the owner may mark it solved
	CommentForm Form
	Composer    Form     // support staff: the composer as a refused send left it (kind, body)
	ComposeTo   []string // support staff: the moves the composer offers (pending, solved)
	CanReopen   bool     // the owner may reopen it (solved)
	MoveError   string   // why the last move or solve changed nothing
	CSRF        string
	Attachments []Attachment // uploaded files, oldest first
	AttachForm  Form         // a refused upload
}

// Closed reports whether nothing may change the ticket any more.
func (t Ticket) Closed() bool { return t.Status == "closed" }

// Comment is one message of a ticket's conversation; the first is the
// description.
type Comment struct {
	Seq    int
	Author string // as the viewer should read it
	Staff  bool
	Body   string
	Time   time.Time
}
