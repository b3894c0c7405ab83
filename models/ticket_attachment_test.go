package models_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// receive sends data to the upload transfer tr, as the upload route does.
func receive(ctx context.Context, store *models.Store, tr *models.AttachmentTransfer, data []byte) error {
	target, err := store.UploadTarget(ctx, tr)
	if err != nil {
		return err
	}
	if err := store.TakesBytes(ctx, target); err != nil {
		return err
	}
	return store.ReceiveAttachment(ctx, target, bytes.NewReader(data))
}

func (f *ticketFixture) openTicket() string {
	f.t.Helper()
	t, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "Logs", Description: "Attached.", Type: models.TicketServiceRequest})
	if err != nil {
		f.t.Fatal(err)
	}
	return t.ID
}

func (f *ticketFixture) attach(ticketID, name string, data []byte) *models.TicketAttachment {
	f.t.Helper()
	a, err := f.store.AttachFile(f.ctx, f.owner, ticketID, models.InitiateAttachmentInput{Filename: name, ContentType: "text/plain"}, data)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

func TestAttachmentLifecycle(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	a, tr, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket,
		models.InitiateAttachmentInput{Filename: "debug.log", ContentType: "Text/Plain; charset=UTF-8", SizeBytes: 5})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != models.AttachmentPending || a.ContentType != "text/plain; charset=UTF-8" || tr.Method != models.TransferUpload {
		t.Fatalf("initiated %+v with %+v", a, tr)
	}
	if tr.ExpiresIn(f.store.Now()) != int64(models.AttachmentUploadLifetime/time.Second) {
		t.Errorf("expires in %d", tr.ExpiresIn(f.store.Now()))
	}
	if list, _ := f.store.TicketAttachments(f.ctx, f.owner, ticket); len(list) != 0 {
		t.Errorf("the default list shows pending attachments: %+v", list)
	}
	wantCode(t, receive(f.ctx, f.store, tr, []byte("hello!")), models.CodeInvalidParameters) // 6 > 5
	if err := receive(f.ctx, f.store, tr, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	done, err := f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID)
	if err != nil || done.Status != models.AttachmentUploaded || done.UploadedAt == nil {
		t.Fatalf("complete: %+v, %v", done, err)
	}
	if again, err := f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil || again.Status != models.AttachmentUploaded {
		t.Fatalf("complete again: %+v, %v", again, err)
	}
	wantCode(t, receive(f.ctx, f.store, tr, []byte("hello")), models.CodeConflict)

	// Support staff list and download any account's attachments.
	list, err := f.store.TicketAttachments(f.ctx, f.support, ticket)
	if err != nil || len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("support list: %+v, %v", list, err)
	}
	_, dl, err := f.store.AttachmentDownload(f.ctx, f.support, ticket, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, body, err := f.store.SendAttachment(f.ctx, dl)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(body)
	if err != nil || got.ID != a.ID || string(data) != "hello" || body.Size() != 5 {
		t.Fatalf("download: %v %q", err, data)
	}
	wantCode(t, f.store.DeleteAttachment(f.ctx, f.support, ticket, a.ID), models.CodeForbidden)

	if err := f.store.DeleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, f.store.DeleteAttachment(f.ctx, f.owner, ticket, a.ID), models.CodeNotFound)
	_, _, err = f.store.SendAttachment(f.ctx, dl)
	wantCode(t, err, models.CodeNotFound)
	if deleted, _ := f.store.TicketAttachments(f.ctx, f.owner, ticket, models.AttachmentDeleted); len(deleted) != 1 {
		t.Errorf("deleted list: %+v", deleted)
	}
	if n := f.count(&models.TicketAttachmentContent{}, ""); n != 0 {
		t.Errorf("%d contents left after delete", n)
	}
	if n := modelstest.AuditCount(t, f.store, f.owner.AccountID, "ticket_attachment"); n != 2 {
		t.Errorf("%d audit events, want 2 (uploaded, deleted)", n)
	}
}

func TestAttachmentIsolation(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	a := f.attach(ticket, "a.txt", []byte("secret"))
	otherTicket, err := f.store.CreateTicket(f.ctx, f.other, models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	// Another account's ticket is not found, and so is an attachment of
	// another ticket named under one's own.
	_, err = f.store.TicketAttachments(f.ctx, f.other, ticket)
	wantCode(t, err, models.CodeTicketNotFound)
	_, _, err = f.store.AttachmentDownload(f.ctx, f.other, otherTicket.ID, a.ID)
	wantCode(t, err, models.CodeNotFound)
	wantCode(t, f.store.DeleteAttachment(f.ctx, f.other, otherTicket.ID, a.ID), models.CodeNotFound)
	_, err = f.store.CompleteAttachment(f.ctx, f.other, otherTicket.ID, a.ID)
	wantCode(t, err, models.CodeNotFound)
}

// shortBody gives data, then ends with err: a client whose connection
// dropped before it sent the size it declared.
type shortBody struct {
	data []byte
	err  error
}

func (b *shortBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

// A body that ends before its declared size, cleanly or not, on a chunk's
// boundary or within one, is refused and stores nothing: the attachment
// stays pending and its URL takes the whole file afterwards.
func TestShortUploadStoresNothing(t *testing.T) {
	size := 2*models.AttachmentChunkSize + 10
	cases := []struct {
		name string
		sent int
		end  error
	}{
		{"ends within a chunk", models.AttachmentChunkSize + 3, io.EOF},
		{"ends on a chunk's boundary", models.AttachmentChunkSize, io.EOF},
		{"ends before any byte", 0, io.EOF},
		{"cut off within a chunk", models.AttachmentChunkSize / 2, io.ErrUnexpectedEOF},
		{"cut off after every byte", size, io.ErrUnexpectedEOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newTicketFixture(t)
			ticket := f.openTicket()
			data := bytes.Repeat([]byte("s"), size)
			a, tr, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket, models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: int64(size)})
			if err != nil {
				t.Fatal(err)
			}
			target, err := f.store.UploadTarget(f.ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			err = f.store.ReceiveAttachment(f.ctx, target, &shortBody{data: data[:tc.sent], err: tc.end})
			wantCode(t, err, models.CodeInvalidParameters)
			if n, m := f.count(&models.TicketAttachmentContent{}, ""), f.count(&models.TicketAttachmentChunk{}, ""); n != 0 || m != 0 {
				t.Fatalf("%d contents and %d chunks stored of a short body", n, m)
			}
			_, err = f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID)
			wantCode(t, err, models.CodeInvalidParameters) // no bytes yet: still pending
			if err := receive(f.ctx, f.store, tr, data); err != nil {
				t.Fatalf("the whole file, sent again: %v", err)
			}
			if _, err := f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestAttachmentTransferSignature(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	a, tr, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket, models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: 3})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket, models.InitiateAttachmentInput{Filename: "b", ContentType: "text/plain", SizeBytes: 3})
	if err != nil {
		t.Fatal(err)
	}
	edited := func(change func(*models.AttachmentTransfer)) *models.AttachmentTransfer {
		c := *tr
		change(&c)
		return &c
	}
	for name, bad := range map[string]*models.AttachmentTransfer{
		"other attachment": edited(func(c *models.AttachmentTransfer) { c.AttachmentID = other.ID }),
		"later expiry":     edited(func(c *models.AttachmentTransfer) { c.Expires = c.Expires.Add(time.Hour) }),
		"larger size":      edited(func(c *models.AttachmentTransfer) { c.Size = 30 }),
		"signature":        edited(func(c *models.AttachmentTransfer) { c.Signature = "00" + c.Signature[2:] }),
		"not hex":          edited(func(c *models.AttachmentTransfer) { c.Signature = "zz" }),
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, f.store.VerifyTransfer(f.ctx, bad), models.CodeForbidden)
		})
	}
	_, _, err = f.store.SendAttachment(f.ctx, edited(func(c *models.AttachmentTransfer) { c.Method = models.TransferDownload }))
	wantCode(t, err, models.CodeForbidden)
	f.clock.Advance(models.AttachmentUploadLifetime)
	wantCode(t, receive(f.ctx, f.store, tr, []byte("abc")), models.CodeForbidden)
	_ = a
}

// A second store on the same database (another replica) verifies what the
// first signed: the key is in the database, not in memory.
func TestAttachmentTransferVerifiesOnAnotherReplica(t *testing.T) {
	dsn := modelstest.DSN(t)
	clock := modelstest.NewClock()
	one := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	two := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, one, "owner@example.com")
	ticket := modelstest.Must[*models.Ticket](t)(one.CreateTicket(t.Context(), owner.Actor(),
		models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest}))
	_, tr, err := one.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID, models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := receive(t.Context(), two, tr, []byte("x")); err != nil {
		t.Fatalf("the other replica refused the upload: %v", err)
	}
}

func TestInitiateAttachmentValidation(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	for _, tc := range []struct {
		name, field string
		in          models.InitiateAttachmentInput
	}{
		{"size 0", "size_bytes", models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain"}},
		{"negative size", "size_bytes", models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: -1}},
		{"too big", "size_bytes", models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: models.MaxAttachmentSize + 1}},
		{"no filename", "filename", models.InitiateAttachmentInput{ContentType: "text/plain", SizeBytes: 1}},
		{"slash", "filename", models.InitiateAttachmentInput{Filename: "../etc/passwd", ContentType: "text/plain", SizeBytes: 1}},
		{"backslash", "filename", models.InitiateAttachmentInput{Filename: `a\b`, ContentType: "text/plain", SizeBytes: 1}},
		{"dot dot", "filename", models.InitiateAttachmentInput{Filename: "..", ContentType: "text/plain", SizeBytes: 1}},
		{"newline", "filename", models.InitiateAttachmentInput{Filename: "a\nb", ContentType: "text/plain", SizeBytes: 1}},
		{"bidi override", "filename", models.InitiateAttachmentInput{Filename: "a\u202etxt.exe", ContentType: "text/plain", SizeBytes: 1}},
		{"too long", "filename", models.InitiateAttachmentInput{Filename: string(bytes.Repeat([]byte("a"), 256)), ContentType: "text/plain", SizeBytes: 1}},
		{"no content type", "content_type", models.InitiateAttachmentInput{Filename: "a", SizeBytes: 1}},
		{"no subtype", "content_type", models.InitiateAttachmentInput{Filename: "a", ContentType: "text", SizeBytes: 1}},
		{"empty subtype", "content_type", models.InitiateAttachmentInput{Filename: "a", ContentType: "text/", SizeBytes: 1}},
		{"garbage", "content_type", models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain; ;;", SizeBytes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket, tc.in)
			e, ok := models.AsError(err)
			if !ok || e.Code != models.CodeInvalidParameters || e.Fields[tc.field] == "" {
				t.Fatalf("err = %v, want a message on %s", err, tc.field)
			}
		})
	}
	if n := f.count(&models.TicketAttachment{}, ""); n != 0 {
		t.Errorf("refused initiates left %d rows", n)
	}
}

func TestAttachmentToClosedTicketRefused(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	closed := models.TicketClosed
	if _, err := f.store.UpdateTicket(f.ctx, f.support, ticket, models.UpdateTicketInput{Status: &closed}); err != nil {
		t.Fatal(err)
	}
	_, err := f.store.AttachFile(f.ctx, f.owner, ticket, models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain"}, []byte("x"))
	wantCode(t, err, models.CodeInvalidParameters)
}

// Many concurrent initiates against the per-account quotas never let the
// account pass them: the account lock makes each count the others.
func TestAttachmentQuotaUnderConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count int
		bytes int64
		size  int64
	}{
		{"count", 5, 1 << 20, 1},
		{"bytes", 100, 50, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := modelstest.Config()
			cfg.AttachmentCountQuota, cfg.AttachmentBytesQuota = tc.count, tc.bytes
			store := modelstest.Open(t, models.WithConfig(cfg))
			owner, _ := modelstest.Owner(t, store, "owner@example.com")
			ticket := modelstest.Must[*models.Ticket](t)(store.CreateTicket(t.Context(), owner.Actor(),
				models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest}))
			const clients = 24
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _, err := store.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID,
						models.InitiateAttachmentInput{Filename: fmt.Sprintf("f%d", i), ContentType: "text/plain", SizeBytes: tc.size})
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			accepted := 0
			for err := range errs {
				if err == nil {
					accepted++
				} else if models.ErrorCode(err) != models.CodeQuotaExceeded {
					t.Errorf("unexpected: %v", err)
				}
			}
			want := min(tc.count, int(tc.bytes/tc.size))
			var rows int64
			store.DB().Model(&models.TicketAttachment{}).Count(&rows)
			if accepted != want || rows != int64(want) {
				t.Fatalf("accepted %d, %d rows; want %d", accepted, rows, want)
			}
		})
	}
}

func TestExpiredPendingAttachmentsArePruned(t *testing.T) {
	cfg := modelstest.Config()
	cfg.AttachmentCountQuota = 1
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithConfig(cfg), models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	ticket := modelstest.Must[*models.Ticket](t)(store.CreateTicket(t.Context(), owner.Actor(),
		models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest}))
	in := models.InitiateAttachmentInput{Filename: "a", ContentType: "text/plain", SizeBytes: 2}
	_, tr, err := store.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := receive(t.Context(), store, tr, []byte("ab")); err != nil {
		t.Fatal(err)
	}
	_, _, err = store.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID, in)
	wantCode(t, err, models.CodeQuotaExceeded)
	if n, err := store.PruneExpiredAttachments(t.Context()); err != nil || n != 0 {
		t.Fatalf("pruned %d before expiry: %v", n, err)
	}
	clock.Advance(models.AttachmentUploadLifetime)
	// Expired, it no longer holds quota, even before it is pruned.
	kept, _, err := store.InitiateAttachment(t.Context(), owner.Actor(), ticket.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := store.PruneExpiredAttachments(t.Context()); err != nil || n != 1 {
		t.Fatalf("pruned %d, want 1: %v", n, err)
	}
	var left []string
	store.DB().Model(&models.TicketAttachment{}).Pluck("id", &left)
	var contents int64
	store.DB().Model(&models.TicketAttachmentContent{}).Count(&contents)
	if len(left) != 1 || left[0] != kept.ID || contents != 0 {
		t.Fatalf("left %v and %d contents", left, contents)
	}
}

// cutOff gives n bytes of data, then fails as a connection that broke.
type cutOff struct {
	data []byte
	n    int
}

func (c *cutOff) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, fmt.Errorf("connection reset by peer")
	}
	k := copy(p, c.data[:min(len(p), c.n)])
	c.data, c.n = c.data[k:], c.n-k
	return k, nil
}

// An upload cut off half-way leaves nothing behind: none of its chunks is
// read as the file, and they are deleted; the same URL then takes the
// whole file, stored in chunks and read back equal.
func TestCutOffUploadLeavesNothing(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	data := make([]byte, 3*models.AttachmentChunkSize+7)
	for i := range data {
		data[i] = byte(i % 251)
	}
	a, tr, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket,
		models.InitiateAttachmentInput{Filename: "dump", ContentType: "application/octet-stream", SizeBytes: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	target, err := f.store.UploadTarget(f.ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	err = f.store.ReceiveAttachment(f.ctx, target, &cutOff{data: data, n: 2*models.AttachmentChunkSize + 5})
	wantCode(t, err, models.CodeInvalidParameters)
	if n := f.count(&models.TicketAttachmentChunk{}, ""); n != 0 {
		t.Fatalf("%d chunks of the cut-off upload left", n)
	}
	_, err = f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID)
	wantCode(t, err, models.CodeInvalidParameters) // no bytes yet: still pending

	if err := receive(f.ctx, f.store, tr, data); err != nil {
		t.Fatalf("sent again: %v", err)
	}
	if n := f.count(&models.TicketAttachmentChunk{}, ""); n != 4 {
		t.Errorf("stored in %d chunks, want 4", n)
	}
	if _, err := f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
	_, body, err := f.store.AttachmentContent(f.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (%v), not the %d sent", len(got), err, len(data))
	}
	if err := f.store.DeleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
	if n := f.count(&models.TicketAttachmentChunk{}, ""); n != 0 {
		t.Errorf("%d chunks left after the delete", n)
	}
}

// A download reads the file a chunk at a time as it is sent: read back
// equal across chunks, and an attachment deleted while it is read ends
// the body with CodeNotFound, never with another upload's bytes.
func TestAttachmentBodyReadsChunkByChunk(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	data := make([]byte, 2*models.AttachmentChunkSize+7)
	for i := range data {
		data[i] = byte(i % 253)
	}
	a, tr, err := f.store.InitiateAttachment(f.ctx, f.owner, ticket,
		models.InitiateAttachmentInput{Filename: "dump", ContentType: "application/octet-stream", SizeBytes: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	if err := receive(f.ctx, f.store, tr, data); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CompleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
	_, whole, err := f.store.AttachmentContent(f.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, cut, err := f.store.AttachmentContent(f.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(whole); err != nil || !bytes.Equal(got, data) || whole.Size() != int64(len(data)) {
		t.Fatalf("read back %d bytes (%v), not the %d sent", len(got), err, len(data))
	}
	first := make([]byte, 10)
	if _, err := io.ReadFull(cut, first); err != nil || !bytes.Equal(first, data[:10]) {
		t.Fatalf("first bytes %q, %v", first, err)
	}
	if err := f.store.DeleteAttachment(f.ctx, f.owner, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(cut)
	wantCode(t, err, models.CodeNotFound)
	if len(rest) >= len(data)-10 {
		t.Fatalf("read %d bytes of a deleted attachment", len(rest))
	}
}
