package api

import (
	"encoding/json"
	"testing"
	"time"

	"cloudplane/models"
)

// The domain budgets the ticket list by upper bounds of this encoder's
// JSON around a ticket's and a comment's text; they must hold for the
// longest values every other field can take.
func TestTicketJSONFramesBoundTheEncoder(t *testing.T) {
	longest := func(values ...string) string {
		out := ""
		for _, v := range values {
			if len(v) > len(out) {
				out = v
			}
		}
		return out
	}
	severity := longest(models.TicketSeverities...)
	at := time.Date(2026, 11, 23, 18, 30, 0, 0, time.UTC)
	d := models.TicketDetail{Ticket: models.Ticket{ID: models.NewID(),
		RequestType: longest(models.TicketIncident, models.TicketServiceRequest, models.TicketAutomatedEvent),
		Severity:    &severity, Status: longest(models.TicketStatuses...),
		CreatedAt: at, UpdatedAt: at, ResolvedAt: &at}}
	ticket, err := json.Marshal(newTicketJSON(d))
	if err != nil {
		t.Fatal(err)
	}
	if frame := len(ticket) + len(","); frame > models.TicketJSONFrame {
		t.Fatalf("a ticket without text takes %d bytes, over TicketJSONFrame (%d): %s", frame, models.TicketJSONFrame, ticket)
	}
	comment, err := json.Marshal(commentJSON{CreatedAt: timestamp(at)})
	if err != nil {
		t.Fatal(err)
	}
	if frame := len(comment) + len(","); frame > models.CommentJSONFrame {
		t.Fatalf("a comment without text takes %d bytes, over CommentJSONFrame (%d): %s", frame, models.CommentJSONFrame, comment)
	}
}
