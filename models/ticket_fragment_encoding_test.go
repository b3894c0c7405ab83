package models_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"cloudplane/models"
)

// apiLikeEncoding encodes a page as handlers/api does, which models' tests
// cannot import: each ticket on its own, joined into the page.
var apiLikeEncoding = models.NewTicketPageEncoding(func(d *models.TicketDetail) []byte {
	body, err := json.Marshal(newAPILikeTicket(d))
	if err != nil {
		panic(err)
	}
	return body
}, func(tickets [][]byte, next *string) []byte {
	// Joined, not marshalled as json.RawMessage, which would scan every
	// ticket's bytes again: the benchmark would mostly measure that.
	token, err := json.Marshal(next)
	if err != nil {
		panic(err)
	}
	joined := bytes.Join(tickets, []byte{','})
	return slices.Concat([]byte(`{"data":{"tickets":[`), joined, []byte(`],"page_token":`), token, []byte(`}}`))
})

// encodeWhole is the page as the API encoded it before tickets were
// encoded on their own: the whole page in one json.Marshal.
func encodeWhole(p *models.TicketDetailPage) []byte {
	out := apiLikePage{Tickets: make([]apiLikeTicket, len(p.Tickets)), PageToken: p.NextPageToken}
	for i := range p.Tickets {
		out.Tickets[i] = newAPILikeTicket(&p.Tickets[i])
	}
	body, err := json.Marshal(struct {
		Data apiLikePage `json:"data"`
	}{out})
	if err != nil {
		panic(err)
	}
	return body
}

type apiLikePage struct {
	Tickets   []apiLikeTicket `json:"tickets"`
	PageToken *string         `json:"page_token"`
}

type apiLikeTicket struct {
	ID          string           `json:"id"`
	Subject     string           `json:"subject"`
	Description string           `json:"description"`
	Type        string           `json:"type"`
	Severity    *string          `json:"severity,omitempty"`
	Status      string           `json:"status"`
	CreatedAt   string           `json:"created_at"`
	UpdatedAt   string           `json:"updated_at"`
	ResolvedAt  *string          `json:"resolved_at,omitempty"`
	Comments    []apiLikeComment `json:"comments"`
}

type apiLikeComment struct {
	Body      string `json:"body"`
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
}

func newAPILikeTicket(d *models.TicketDetail) apiLikeTicket {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	out := apiLikeTicket{ID: d.ID, Subject: d.Subject, Description: d.Description, Type: d.RequestType,
		Severity: d.Severity, Status: models.APITicketStatus(d.Status), CreatedAt: stamp(d.CreatedAt),
		UpdatedAt: stamp(d.UpdatedAt), Comments: make([]apiLikeComment, len(d.Comments))}
	if d.ResolvedAt != nil {
		resolved := stamp(*d.ResolvedAt)
		out.ResolvedAt = &resolved
	}
	for i, c := range d.Comments {
		out.Comments[i] = apiLikeComment{Body: c.Body, Author: c.Author, CreatedAt: stamp(c.CreatedAt)}
	}
	return out
}
