package models_test

import (
	"bytes"
	"encoding/json"

	"cloudplane/models"
)

// apiLikeEncoding encodes each ticket as json.Marshal writes
// models.TicketDetail, every column read and every comment's with it, so
// that a page from stale fragments shows; the page joins the tickets as
// handlers/api does, which models' tests cannot import.
var apiLikeEncoding = models.NewTicketPageEncoding(func(d *models.TicketDetail) []byte {
	body, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	return body
}, func(tickets [][]byte, next *string) []byte {
	// Joined into one buffer of the page's size, as the handler's is,
	// not marshalled as json.RawMessage, which would scan every ticket's
	// bytes again: the benchmark would mostly measure that.
	token, err := json.Marshal(next)
	if err != nil {
		panic(err)
	}
	var page bytes.Buffer
	page.Grow(len(token) + 64 + len(tickets) + sliceLens(tickets))
	page.WriteString(`{"data":{"tickets":[`)
	for i := range tickets {
		if i > 0 {
			page.WriteByte(',')
		}
		page.Write(tickets[i])
	}
	page.WriteString(`],"page_token":`)
	page.Write(token)
	page.WriteString(`}}`)
	return page.Bytes()
})

// sliceLens is the sum of the lengths of bs.
func sliceLens(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}

// wholePage is the page apiLikeEncoding writes, as one value.
type wholePage struct {
	Data struct {
		Tickets   []models.TicketDetail `json:"tickets"`
		PageToken *string               `json:"page_token"`
	} `json:"data"`
}

// encodeWhole is the page as apiLikeEncoding would write it were it one
// json.Marshal of the whole page, as the API's was before tickets were
// encoded on their own.
func encodeWhole(p *models.TicketDetailPage) []byte {
	var whole wholePage
	whole.Data.Tickets, whole.Data.PageToken = p.Tickets, p.NextPageToken
	if whole.Data.Tickets == nil {
		whole.Data.Tickets = []models.TicketDetail{}
	}
	body, err := json.Marshal(whole)
	if err != nil {
		panic(err)
	}
	return body
}
