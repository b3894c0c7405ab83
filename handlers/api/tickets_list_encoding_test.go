package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
)

// ticketListJSON is the list's body as json.Marshal wrote it whole, before
// the store kept each ticket's JSON apart: the encoding's reference.
type ticketListJSON struct {
	Tickets   []ticketJSON `json:"tickets"`
	PageToken *string      `json:"page_token"`
}

// The list's body joined from each ticket's JSON is, byte for byte, what
// one json.Marshal of the whole page wrote: for no tickets, one and many,
// with and without a page token, and text that JSON escapes.
func TestTicketListEncodingEqualsWholeMarshal(t *testing.T) {
	at := time.Date(2026, 11, 23, 18, 30, 0, 123456789, time.FixedZone("x", 3600))
	severity, token := "sev_1", "eyJvIjoiY3JlYXRlZF9hdCJ9<&>"
	ticket := func(i int) models.TicketDetail {
		d := models.TicketDetail{Ticket: models.Ticket{ID: models.NewID(), Subject: fmt.Sprintf("<b>%d</b> & \u2028", i),
			Description: "line\nbreak \"quoted\" é \x01", RequestType: models.TicketIncident, Status: models.TicketNew,
			CreatedAt: at, UpdatedAt: at.Add(time.Duration(i) * time.Second)}}
		if i%2 == 1 {
			d.Severity, d.ResolvedAt, d.Status = &severity, &at, models.TicketClosed
		}
		for j := range i % 3 {
			d.Comments = append(d.Comments, models.TicketComment{Body: fmt.Sprintf("comment %d <%d>", j, i),
				Author: "a&b@example.com", CreatedAt: at})
		}
		return d
	}
	for _, n := range []int{0, 1, 2, 7} {
		for _, next := range []*string{nil, &token} {
			page := &models.TicketDetailPage{NextPageToken: next}
			for i := range n {
				page.Tickets = append(page.Tickets, ticket(i))
			}
			whole := ticketListJSON{Tickets: make([]ticketJSON, len(page.Tickets)), PageToken: next}
			for i, d := range page.Tickets {
				whole.Tickets[i] = newTicketJSON(d)
			}
			want, err := json.Marshal(dataBody[ticketListJSON]{Data: whole})
			if err != nil {
				t.Fatal(err)
			}
			if got := ticketListEncoding.Encode(page); !bytes.Equal(got, want) {
				t.Errorf("%d tickets, token %v:\n%s\nwant\n%s", n, next != nil, got, want)
			}
		}
	}
}
