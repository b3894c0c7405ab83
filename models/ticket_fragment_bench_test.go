package models_test

import (
	"context"
	"testing"

	"cloudplane/models"
)

// BenchmarkTicketPageOneChanged reads an owner's full page (100 tickets,
// each with its description and 2 comments) encoded as the API's JSON,
// after a comment on one of its tickets (which changes the account's
// version, as every write of the load test does). A read should cost
// about what changed, not the whole page.
//
//	go test ./models -run '^$' -bench TicketPageOneChanged
func BenchmarkTicketPageOneChanged(b *testing.B) { benchTicketPage(b, true) }

// BenchmarkTicketPageUnchanged reads the same page again with nothing
// changed in between (an idle client polling).
func BenchmarkTicketPageUnchanged(b *testing.B) { benchTicketPage(b, false) }

func benchTicketPage(b *testing.B, change bool) {
	ctx := context.Background()
	store, owner, page := commentedPage(b, 2)
	if _, err := store.TicketsWithCommentsEncoded(ctx, owner, models.TicketFilter{}, apiLikeEncoding); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if !change {
			if _, err := store.TicketsWithCommentsEncoded(ctx, owner, models.TicketFilter{}, apiLikeEncoding); err != nil {
				b.Fatal(err)
			}
			continue
		}
		b.StopTimer()
		if _, err := store.UpdateTicket(ctx, owner, page.Tickets[i%len(page.Tickets)].ID, models.UpdateTicketInput{
			Comment: &models.TicketCommentInput{Body: "one more"}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := store.TicketsWithCommentsEncoded(ctx, owner, models.TicketFilter{}, apiLikeEncoding); err != nil {
			b.Fatal(err)
		}
	}
}

// commentedPage is a store whose owner has a full page of tickets, each
// with its description and perTicket comments.
func commentedPage(b *testing.B, perTicket int) (*models.Store, models.Actor, *models.TicketPage) {
	b.Helper()
	store := unboundedStore(b)
	owner := benchOwners(b, store, 1)[0]
	createTickets(b, store, owner, models.TicketPageSize)
	page, err := store.Tickets(context.Background(), owner, models.TicketFilter{})
	if err != nil {
		b.Fatal(err)
	}
	commentAll(b, store, owner, page.Tickets, perTicket)
	return store, owner, page
}
