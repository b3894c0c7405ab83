package api

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// ticketJSON is the reference's Ticket. Its status is the API's reading of
// ours: new reads open and closed reads solved.
type ticketJSON struct {
	ID          string        `json:"id"`
	Subject     string        `json:"subject"`
	Description string        `json:"description"`
	Type        string        `json:"type"`
	Severity    *string       `json:"severity,omitempty"`
	Status      string        `json:"status"`
	CreatedAt   string        `json:"created_at"`
	UpdatedAt   string        `json:"updated_at"`
	ResolvedAt  *string       `json:"resolved_at,omitempty"`
	Comments    []commentJSON `json:"comments"`
}

type commentJSON struct {
	Body      string `json:"body"`
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
}

// ticketCreatedJSON is the reference's TicketCreateResponse.
type ticketCreatedJSON struct {
	ID        string  `json:"id"`
	Status    string  `json:"status"`
	Type      string  `json:"type"`
	Severity  *string `json:"severity,omitempty"`
	CreatedAt string  `json:"created_at"`
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func newTicketJSON(d models.TicketDetail) ticketJSON {
	out := ticketJSON{ID: d.ID, Subject: d.Subject, Description: d.Description, Type: d.RequestType,
		Severity: d.Severity, Status: models.APITicketStatus(d.Status),
		CreatedAt: timestamp(d.CreatedAt), UpdatedAt: timestamp(d.UpdatedAt), Comments: make([]commentJSON, len(d.Comments))}
	if d.ResolvedAt != nil {
		resolved := timestamp(*d.ResolvedAt)
		out.ResolvedAt = &resolved
	}
	for i, c := range d.Comments {
		out.Comments[i] = commentJSON{Body: c.Body, Author: c.Author, CreatedAt: timestamp(c.CreatedAt)}
	}
	return out
}

// Tickets lists the account's tickets with their comments: filters status,
// type and severity (repeatable, or comma-separated), order_by, direction,
// page_token. A page holds fewer than 100 tickets when their text is large
// (models.TicketListPageBudget).
func (h *Handlers) Tickets(c *fiber.Ctx) error {
	// The query's values are copied: the store keeps them in its cache.
	body, err := h.store.TicketsWithCommentsEncoded(c.UserContext(), Actor(c), models.TicketFilter{
		APIStatuses: queryList(c, "status"), Types: queryList(c, "type"), Severities: queryList(c, "severity"),
		OrderBy: strings.Clone(c.Query("order_by")), Direction: strings.Clone(c.Query("direction")),
		PageToken: strings.Clone(c.Query("page_token")),
	}, ticketListEncoding)
	if err != nil {
		return err
	}
	return sendJSON(c, body)
}

// ticketListEncoding is the list's body, {"data": {"tickets": [...],
// "page_token": ...}}, as ok would write it; the store keeps each ticket's
// JSON until the ticket changes, and the page's until the account does.
var ticketListEncoding = models.NewTicketPageEncoding(encodeListedTicket, encodeTicketList)

// encodeListedTicket is one ticket's JSON as the list holds it.
func encodeListedTicket(d *models.TicketDetail) []byte {
	body, err := json.Marshal(newTicketJSON(*d))
	if err != nil {
		panic(err) // strings, times and slices always encode
	}
	return body
}

// encodeTicketList is the list's body around its tickets' JSON, byte for
// byte what json.Marshal writes for dataBody[ticketListJSON]: the tickets
// are already JSON, and marshalling them as json.RawMessage would scan
// every byte of them again.
func encodeTicketList(tickets [][]byte, next *string) []byte {
	const head, middle, tail = `{"data":{"tickets":[`, `],"page_token":`, `}}`
	token, err := json.Marshal(next)
	if err != nil {
		panic(err) // a string always encodes
	}
	size := len(head) + len(tickets) + len(middle) + len(token) + len(tail)
	for _, t := range tickets {
		size += len(t)
	}
	body := append(make([]byte, 0, size), head...)
	for i, t := range tickets {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, t...)
	}
	body = append(append(append(body, middle...), token...), tail...)
	return body
}

// queryList reads an array query parameter given as name=a&name=b, or as
// name=a,b. The values are copies: fasthttp reuses its buffers.
func queryList(c *fiber.Ctx, name string) []string {
	var out []string
	for _, raw := range c.Context().QueryArgs().PeekMulti(name) {
		for _, v := range strings.Split(string(raw), ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// CreateTicket opens a ticket.
func (h *Handlers) CreateTicket(c *fiber.Ctx) error {
	var in models.CreateTicketInput
	if err := decode(c, &in); err != nil {
		return err
	}
	t, err := h.store.CreateTicket(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, ticketCreatedJSON{ID: t.ID, Status: models.APITicketStatus(t.Status), Type: t.RequestType,
		Severity: t.Severity, CreatedAt: timestamp(t.CreatedAt)})
}

// Ticket returns one ticket with its comments.
func (h *Handlers) Ticket(c *fiber.Ctx) error {
	d, err := h.store.Ticket(c.UserContext(), Actor(c), c.Params("ticket_id"))
	if err != nil {
		return err
	}
	return ok(c, newTicketJSON(*d))
}

// UpdateTicket solves a ticket, changes its severity or adds a comment,
// and answers 202 with an empty object, as the reference does.
func (h *Handlers) UpdateTicket(c *fiber.Ctx) error {
	var in models.UpdateTicketInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if _, err := h.store.UpdateTicket(c.UserContext(), Actor(c), c.Params("ticket_id"), in); err != nil {
		return err
	}
	c.Status(fiber.StatusAccepted)
	return ok(c, struct{}{})
}
