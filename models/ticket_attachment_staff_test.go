package models_test

import (
	"io"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Support staff attach files from the composer: one sent with a reply is
// the customer's to read, download and delete; one sent with an internal
// note is internal and does not exist for the owner, whose account log
// does not name it either. Owners cannot make a file internal.
func TestSupportAttachesToReplyAndNote(t *testing.T) {
	f := newTicketFixture(t)
	ticket := f.openTicket()
	in := func(name string) models.InitiateAttachmentInput {
		return models.InitiateAttachmentInput{Filename: name, ContentType: "text/plain"}
	}
	public, err := f.store.AttachToReply(f.ctx, f.support, ticket, models.ReplyPublic, in("fix.sh"), []byte("reboot"))
	if err != nil {
		t.Fatal(err)
	}
	internal, err := f.store.AttachToReply(f.ctx, f.support, ticket, models.ReplyNote, in("host-dump.txt"), []byte("node 7 ECC"))
	if err != nil {
		t.Fatal(err)
	}
	if public.Internal || !internal.Internal || public.AccountID != f.owner.AccountID || internal.AccountID != f.owner.AccountID ||
		internal.Status != models.AttachmentUploaded {
		t.Fatalf("attached %+v and %+v", public, internal)
	}

	// Staff see both.
	list, err := f.store.TicketAttachments(f.ctx, f.support, ticket)
	if err != nil || len(list) != 2 {
		t.Fatalf("support's list: %+v, %v", list, err)
	}
	_, dl, err := f.store.AttachmentDownload(f.ctx, f.support, ticket, internal.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := f.store.SendAttachment(f.ctx, dl)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(body); string(data) != "node 7 ECC" {
		t.Fatalf("support downloaded %q", data)
	}

	// The owner sees only the reply's file, in every status's list, and
	// the internal one is not found however it is asked for.
	list, err = f.store.TicketAttachments(f.ctx, f.owner, ticket, models.AttachmentStatuses...)
	if err != nil || len(list) != 1 || list[0].ID != public.ID {
		t.Fatalf("owner's list: %+v, %v", list, err)
	}
	_, err = f.store.TicketAttachment(f.ctx, f.owner, ticket, internal.ID)
	wantCode(t, err, models.CodeNotFound)
	_, _, err = f.store.AttachmentDownload(f.ctx, f.owner, ticket, internal.ID)
	wantCode(t, err, models.CodeNotFound)
	wantCode(t, f.store.DeleteAttachment(f.ctx, f.owner, ticket, internal.ID), models.CodeNotFound)
	if _, _, err := f.store.AttachmentDownload(f.ctx, f.owner, ticket, public.ID); err != nil {
		t.Fatalf("owner downloads the reply's file: %v", err)
	}
	if err := f.store.DeleteAttachment(f.ctx, f.owner, ticket, public.ID); err != nil {
		t.Fatalf("owner deletes the reply's file: %v", err)
	}

	// The account's log names the reply's file (uploaded, then deleted),
	// never the note's.
	if n := modelstest.AuditCount(t, f.store, f.owner.AccountID, "ticket_attachment"); n != 2 {
		t.Errorf("%d attachment events in the account's log, want 2 (the reply's file uploaded and deleted)", n)
	}
	if n := f.count(&models.AuditEvent{}, "account_id = ? AND additional_details LIKE ?", f.owner.AccountID, "%host-dump%"); n != 0 {
		t.Errorf("the account's log names the internal file %d times", n)
	}

	// Owners cannot make a file internal, nor send through the composer.
	_, err = f.store.AttachToReply(f.ctx, f.owner, ticket, models.ReplyNote, in("x.txt"), []byte("x"))
	wantCode(t, err, models.CodeForbidden)
	_, err = f.store.AttachToReply(f.ctx, f.support, ticket, "shout", in("x.txt"), []byte("x"))
	wantCode(t, err, models.CodeInvalidParameters)
	// Staff reach any account's ticket through the API's three steps too.
	a, tr, err := f.store.InitiateAttachment(f.ctx, f.support, ticket, models.InitiateAttachmentInput{Filename: "y.txt", ContentType: "text/plain", SizeBytes: 1})
	if err != nil || a.Internal || a.AccountID != f.owner.AccountID {
		t.Fatalf("support initiates: %+v, %v", a, err)
	}
	if err := receive(f.ctx, f.store, tr, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CompleteAttachment(f.ctx, f.support, ticket, a.ID); err != nil {
		t.Fatal(err)
	}
}
