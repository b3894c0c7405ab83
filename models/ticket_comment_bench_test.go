package models_test

import (
	"context"
	"fmt"
	"testing"

	"cloudplane/models"
)

// BenchmarkTicketPageAsCommentsAccumulate reads a full page of tickets with
// their comments, as the API lists them, with a new comment on one of its
// tickets before each read (what the load test does between two lists of
// an account), from an account whose page holds 100 and 8,000 comments.
// A re-read costs what changed since the last, not every comment again:
// the two sizes' ns/op should be close.
//
//	go test ./models -run '^$' -bench TicketPageAsCommentsAccumulate
func BenchmarkTicketPageAsCommentsAccumulate(b *testing.B) {
	for _, perTicket := range []int{0, 79} {
		ctx := context.Background()
		store, owner, page := commentedPage(b, perTicket)
		comments := models.TicketPageSize * (1 + perTicket) // descriptions included
		b.Run(fmt.Sprintf("comments=%d", comments), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := page.Tickets[i%len(page.Tickets)].ID
				if _, err := store.UpdateTicket(ctx, owner, id, models.UpdateTicketInput{
					Comment: &models.TicketCommentInput{Body: fmt.Sprintf("bench %d", i)}}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				got, err := store.TicketsWithComments(ctx, owner, models.TicketFilter{})
				if err != nil || len(got.Tickets) != models.TicketPageSize {
					b.Fatalf("%d tickets, %v", len(got.Tickets), err)
				}
			}
		})
	}
}

// commentAll adds n comments to each of tickets.
func commentAll(b *testing.B, store *models.Store, owner models.Actor, tickets []models.TicketSummary, n int) {
	b.Helper()
	eightAtOnce(b, len(tickets)*n, func(i int) error {
		_, err := store.UpdateTicket(context.Background(), owner, tickets[i%len(tickets)].ID, models.UpdateTicketInput{
			Comment: &models.TicketCommentInput{Body: fmt.Sprintf("comment %d", i)}})
		return err
	})
}
