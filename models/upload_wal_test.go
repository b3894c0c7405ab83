package models_test

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Uploads keep the SQLite WAL short: their chunks count, by their bytes,
// towards starting the WAL over. Counted as changes alone, uploads at once
// made the WAL grow by every byte they sent (fifty of 25 MiB: 1.5 GB).
func TestUploadsKeepTheWALShort(t *testing.T) {
	if !isSQLite() {
		t.Skip("PostgreSQL has no WAL file of the server's to keep short")
	}
	const uploads, bound = 12, 128 << 20 // 300 MiB sent; the WAL starts over near 64 MiB
	dsn := modelstest.DSN(t)
	store := modelstest.OpenAt(t, dsn)
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	ticket := modelstest.Must[*models.Ticket](t)(store.CreateTicket(t.Context(), owner.Actor(),
		models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest}))
	var peak atomic.Int64
	stop, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		for {
			if fi, err := os.Stat(dsn + "-wal"); err == nil && fi.Size() > peak.Load() {
				peak.Store(fi.Size())
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	data := bytes.Repeat([]byte("0123456789abcdef"), models.MaxAttachmentSize/16)
	var wg sync.WaitGroup
	for range uploads {
		wg.Go(func() {
			_, tr, err := store.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID,
				models.InitiateAttachmentInput{Filename: "dump", ContentType: "application/octet-stream", SizeBytes: int64(len(data))})
			if err == nil {
				err = receive(t.Context(), store, tr, data)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-watched
	if peak.Load() > bound {
		t.Fatalf("the WAL reached %d MiB for %d MiB uploaded, want at most %d MiB", peak.Load()>>20, uploads*len(data)>>20, bound>>20)
	}
}
