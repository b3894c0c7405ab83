package models_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkCreateFilesystemsParallel is the write path without HTTP: 64
// goroutines create filesystems over 20 accounts, as the write benchmark
// does. On SQLite it measures the one writer: its batches, the account
// lock, the quota, the insert and the audit event.
func BenchmarkCreateFilesystemsParallel(b *testing.B) {
	ctx := context.Background()
	store := unboundedStore(b)
	actors := benchOwners(b, store, 20)
	createInParallel(b, 32, func(i int64) error { // 64 on 2 CPUs
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i), Region: "us-east-1"}
		_, err := store.CreateFilesystem(ctx, actors[i%int64(len(actors))], in)
		return err
	})
	if w, ok := store.Database().WriterStats(); ok && w.Commits > 0 {
		b.ReportMetric(float64(w.Changes)/float64(w.Commits), "changes/commit")
	}
}

// BenchmarkCreateTicketsParallel is the ticket write path without HTTP:
// 16 goroutines open tickets over 10 accounts with a webhook endpoint
// each, as the webhook benchmark does at its top rate: the ticket, its
// first comment, the event, its delivery, the audit event and the
// account's version in one transaction.
func BenchmarkCreateTicketsParallel(b *testing.B) {
	ctx := context.Background()
	store, actors := ownersWithEndpoints(b, 10)
	createInParallel(b, 8, func(i int64) error { // 16 on 2 CPUs
		in := models.CreateTicketInput{Subject: fmt.Sprint("Ticket ", i), Description: "It broke.",
			Type: models.TicketIncident, Severity: ptr("sev_3")}
		_, err := store.CreateTicket(ctx, actors[i%int64(len(actors))], in)
		return err
	})
}

// createInParallel runs create from parallelism goroutines per CPU, with
// a number no other call of the run gets.
func createInParallel(b *testing.B, parallelism int, create func(i int64) error) {
	b.Helper()
	var n atomic.Int64
	b.SetParallelism(parallelism)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := create(n.Add(1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// ownersWithEndpoints is a store allowing private webhook addresses, with
// n owners whose accounts have an enabled endpoint each.
func ownersWithEndpoints(b *testing.B, n int) (*models.Store, []models.Actor) {
	b.Helper()
	cfg := modelstest.Config()
	cfg.WebhookAllowPrivate = true
	store := modelstest.Open(b, models.WithConfig(cfg))
	owners := benchOwners(b, store, n)
	for i, owner := range owners {
		in := models.SetWebhookInput{URL: fmt.Sprintf("https://%d.example.com/", i)}
		if _, _, err := store.SetWebhook(context.Background(), owner, in); err != nil {
			b.Fatal(err)
		}
	}
	return store, owners
}

// BenchmarkAuditPageAfterWrites reads the first page of an account's
// audit log while another account writes between reads, so that SQLite's
// readers start each read with their page cache dropped, as under load.
func BenchmarkAuditPageAfterWrites(b *testing.B) {
	ctx := context.Background()
	store := unboundedStore(b)
	owners := benchOwners(b, store, 8)
	// Interleaved events of eight accounts, as many accounts make them.
	for i := range 800 {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, owners[i%len(owners)], in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 800
	for b.Loop() {
		b.StopTimer()
		i++
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, owners[1], in); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		page, err := store.AuditEvents(ctx, owners[0], models.AuditEventsInput{})
		if err != nil || len(page.Events) != models.AuditPageSize {
			b.Fatalf("%d events, %v", len(page.Events), err)
		}
	}
}

// unboundedStore is a store whose accounts' filesystem quota is out of
// reach: the benchmarks measure creates, not refusals.
func unboundedStore(b *testing.B) *models.Store {
	cfg := modelstest.Config()
	cfg.DefaultFilesystemQuota = 1 << 30
	return modelstest.Open(b, models.WithConfig(cfg))
}

// BenchmarkTicketsWithCommentsAfterWrites lists a full page of tickets
// with their comments, as the API does, with a write between reads.
func BenchmarkTicketsWithCommentsAfterWrites(b *testing.B) {
	ctx := context.Background()
	store := unboundedStore(b)
	// Tickets of 16 accounts interleaved, each with a comment, as many
	// accounts' tickets are on a busy server.
	owners := benchOwners(b, store, 16)
	for i := range len(owners) * models.TicketPageSize {
		actor := owners[i%len(owners)]
		t, err := store.CreateTicket(ctx, actor, models.CreateTicketInput{Subject: fmt.Sprintf("ticket %d", i),
			Description: "It broke.", Type: models.TicketServiceRequest})
		if err != nil {
			b.Fatal(err)
		}
		body := "Still broken."
		if _, err := store.UpdateTicket(ctx, actor, t.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(ctx, owners[1], in); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		page, err := store.TicketsWithComments(ctx, owners[0], models.TicketFilter{})
		if err != nil || len(page.Tickets) != models.TicketPageSize || len(page.Tickets[0].Comments) != 2 {
			b.Fatalf("%+v, %v", page, err)
		}
	}
}

// benchOwners makes n accounts with an owner each.
func benchOwners(b *testing.B, store *models.Store, n int) []models.Actor {
	owners := make([]models.Actor, n)
	for i := range owners {
		owner, _ := modelstest.Owner(b, store, fmt.Sprintf("owner%d@example.com", i))
		owners[i] = owner.Actor()
	}
	return owners
}
