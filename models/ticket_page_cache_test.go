package models_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"cloudplane/models"
)

// subjectsAndComments encodes a page as the subjects and comment bodies it
// holds, which is all the tests below look at.
var subjectsAndComments = models.NewTicketPageEncoding(func(d *models.TicketDetail) []byte {
	out := []string{d.Subject}
	for _, c := range d.Comments {
		out = append(out, c.Body)
	}
	b, _ := json.Marshal(out)
	return b[1 : len(b)-1] // the strings alone: pages are one flat array
}, func(tickets [][]byte, _ *string) []byte {
	return append(append([]byte{'['}, bytes.Join(tickets, []byte{','})...), ']')
})

// An owner's encoded pages are cached, but every write to the account is
// seen by the next read: clients that each comment and then list, all at
// once, always find their own comment, and never another account's.
func TestTicketPagesCachedNeverStale(t *testing.T) {
	f := newTicketFixture(t)
	var ids []string
	for i := range 4 {
		ids = append(ids, f.incident(f.owner, fmt.Sprintf("ticket %d", i)).ID)
	}
	f.incident(f.other, "not mine")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for client := range 8 {
		wg.Go(func() {
			for round := range 4 {
				body := fmt.Sprintf("client %d round %d", client, round)
				if _, err := f.store.UpdateTicket(f.ctx, f.owner, ids[client%len(ids)],
					models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
					errs <- err
					return
				}
				for range 3 { // reads after the first may come from the cache
					page, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner, models.TicketFilter{}, subjectsAndComments)
					if err != nil {
						errs <- err
						return
					}
					if !bytes.Contains(page, []byte(`"`+body+`"`)) || bytes.Contains(page, []byte("not mine")) {
						errs <- fmt.Errorf("after commenting %q the page reads %s", body, page)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Pages of other filters and page tokens are cached apart, and encoded
// pages equal what TicketsWithComments gives.
func TestTicketPagesCachedPerQuery(t *testing.T) {
	f := newTicketFixture(t)
	for i := range 3 {
		f.incident(f.owner, fmt.Sprintf("ticket %d", i))
		f.clock.Advance(1e9)
	}
	for _, filter := range []models.TicketFilter{{}, {Direction: "asc"}, {Direction: "asc", Limit: 1}, {APIStatuses: []string{"solved"}}} {
		for range 2 {
			got, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner, filter, subjectsAndComments)
			if err != nil {
				t.Fatal(err)
			}
			page, err := f.store.TicketsWithComments(f.ctx, f.owner, filter)
			if err != nil {
				t.Fatal(err)
			}
			if want := subjectsAndComments.Encode(page); !bytes.Equal(got, want) {
				t.Errorf("%+v: cached %s, want %s", filter, got, want)
			}
		}
	}
	// A page token's page is its own.
	first, err := f.store.TicketsWithComments(f.ctx, f.owner, models.TicketFilter{Direction: "asc", Limit: 1})
	if err != nil || first.NextPageToken == nil {
		t.Fatal(first, err)
	}
	second, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner,
		models.TicketFilter{Direction: "asc", Limit: 1, PageToken: *first.NextPageToken}, subjectsAndComments)
	if err != nil || !bytes.Contains(second, []byte(`"ticket 1"`)) || bytes.Contains(second, []byte(`"ticket 0"`)) {
		t.Errorf("second page reads %s, %v", second, err)
	}
	// A tampered token is refused, cached pages or not.
	if _, err := f.store.TicketsWithCommentsEncoded(f.ctx, f.owner,
		models.TicketFilter{PageToken: "x" + *first.NextPageToken}, subjectsAndComments); err == nil {
		t.Error("a tampered page token was accepted")
	}
}
