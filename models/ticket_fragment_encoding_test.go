package models_test

import (
	"encoding/json"
	"time"

	"cloudplane/models"
)

// apiLikeEncoding encodes a page as handlers/api does, which models' tests
// cannot import.
var apiLikeEncoding = models.NewTicketPageEncoding(func(p *models.TicketDetailPage) []byte {
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
})

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
