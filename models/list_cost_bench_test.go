package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cloudplane/models"
)

// BenchmarkListCostByAccountSize reads the same size of page from an
// account of 200 and of 10,000 tickets (and as many audit events): a list
// must cost what its page holds, not what the account holds, so the two
// sizes' ns/op and allocs/op should match.
//
//	go test ./models -run '^$' -bench ListCostByAccountSize
func BenchmarkListCostByAccountSize(b *testing.B) {
	for _, size := range []int{200, 10_000} {
		ctx := context.Background()
		store := unboundedStore(b)
		owner := benchOwners(b, store, 1)[0]
		createTickets(b, store, owner, size)
		b.Run(fmt.Sprintf("tickets=%d/ticket_page", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := store.TicketsWithComments(ctx, owner, models.TicketFilter{Limit: 10})
				if err != nil || len(page.Tickets) != 10 {
					b.Fatalf("%d tickets, %v", len(page.Tickets), err)
				}
			}
		})
		b.Run(fmt.Sprintf("tickets=%d/audit_page", size), func(b *testing.B) {
			// The oldest events, the API's first page: a full page of 100
			// whatever the account's log holds beyond it.
			b.ReportAllocs()
			for b.Loop() {
				page, err := store.AuditEvents(ctx, owner, models.AuditEventsInput{})
				if err != nil || len(page.Events) != models.AuditPageSize {
					b.Fatalf("%d events, %v", len(page.Events), err)
				}
			}
		})
	}
}

// createTickets opens n tickets in the owner's account.
func createTickets(b *testing.B, store *models.Store, owner models.Actor, n int) {
	b.Helper()
	eightAtOnce(b, n, func(i int) error {
		_, err := store.CreateTicket(context.Background(), owner, models.CreateTicketInput{
			Subject: fmt.Sprintf("ticket %d", i), Description: "It broke.", Type: models.TicketServiceRequest})
		return err
	})
}

// eightAtOnce calls write for 0 to n-1, eight at a time so that the SQLite
// writer batches them, and fails b on the first error.
func eightAtOnce(b *testing.B, n int, write func(i int) error) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				if err := write(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
