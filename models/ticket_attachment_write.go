package models

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// InitiateAttachment starts an upload to a ticket: an owner's (or
// member's) to their account's tickets, support staff's to any ticket. It
// records a pending attachment and returns it with a presigned upload
// transfer (PUT, good for AttachmentUploadLifetime, at most the declared
// size). The declared size counts against the ticket's account's quotas
// from now until the upload window ends, so concurrent uploads cannot
// overshoot them. Fails with CodeTicketNotFound, CodeInvalidParameters
// (bad input, a closed ticket), CodeQuotaExceeded (AttachmentCountQuota
// files or AttachmentBytesQuota bytes), and for viewers, and for anyone but
// staff asking for an internal file, CodeForbidden.
func (s *Store) InitiateAttachment(ctx context.Context, actor Actor, ticketID string, in InitiateAttachmentInput) (*TicketAttachment, *AttachmentTransfer, error) {
	return s.initiateAttachment(ctx, actor, ticketID, in, false)
}

func (s *Store) initiateAttachment(ctx context.Context, actor Actor, ticketID string, in InitiateAttachmentInput, internal bool) (*TicketAttachment, *AttachmentTransfer, error) {
	if err := mayAttach(actor, internal); err != nil {
		return nil, nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, nil, err
	}
	now := s.Now()
	a := &TicketAttachment{ID: NewID(), CreatedByUserID: actor.UserID, Internal: internal,
		Filename: in.Filename, ContentType: in.ContentType, SizeBytes: in.SizeBytes, Status: AttachmentPending,
		CreatedAt: now, UploadExpiresAt: now.Add(AttachmentUploadLifetime)}
	// Signed before the transaction: the first use of the secret writes it.
	tr, err := s.signTransfer(ctx, TransferUpload, a.ID, a.UploadExpiresAt, a.SizeBytes)
	if err != nil {
		return nil, nil, err
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		t, err := findTicket(tx, actor, ticketID, false)
		if err != nil {
			return err
		}
		// The account lock makes concurrent initiates count each other.
		if _, err := lockAccount(tx, t.AccountID); err != nil {
			return err
		}
		if t.Status == TicketClosed {
			return Errorf(CodeInvalidParameters, "Ticket %q is closed and cannot change; open a new ticket", t.ID)
		}
		if err := s.checkAttachmentQuota(tx, t.AccountID, a.SizeBytes, now); err != nil {
			return err
		}
		a.TicketID, a.AccountID = t.ID, t.AccountID
		return tx.Create(a).Error
	})
	if err != nil {
		return nil, nil, err
	}
	return a, tr, nil
}

// checkAttachmentQuota counts the account's attachments that hold space
// (uploaded, or pending within their upload window) and fails with
// CodeQuotaExceeded when one more of size bytes would pass a quota.
func (s *Store) checkAttachmentQuota(tx *gorm.DB, accountID string, size int64, now time.Time) error {
	var used struct {
		Files int64
		Bytes int64
	}
	err := tx.Model(&TicketAttachment{}).Select("count(*) AS files, coalesce(sum(size_bytes), 0) AS bytes").
		Where("account_id = ? AND (status = ? OR (status = ? AND upload_expires_at > ?))",
			accountID, AttachmentUploaded, AttachmentPending, now).Scan(&used).Error
	if err != nil {
		return err
	}
	if used.Files >= int64(s.cfg.AttachmentCountQuota) {
		return &Error{Code: CodeQuotaExceeded,
			Message:    fmt.Sprintf("The account has reached its quota of %d ticket attachments", s.cfg.AttachmentCountQuota),
			Suggestion: "Delete attachments you no longer need, or contact support to raise the quota"}
	}
	if used.Bytes+size > s.cfg.AttachmentBytesQuota {
		return &Error{Code: CodeQuotaExceeded,
			Message: fmt.Sprintf("The account's ticket attachments would take %d bytes, more than its quota of %d (%d in use)",
				used.Bytes+size, s.cfg.AttachmentBytesQuota, used.Bytes),
			Suggestion: "Delete attachments you no longer need, or contact support to raise the quota"}
	}
	return nil
}

// SendAttachment returns an uploaded attachment and its bytes, to be read
// as they are sent, for a presigned download URL: the verified transfer
// is the permission.
func (s *Store) SendAttachment(ctx context.Context, t *AttachmentTransfer) (*TicketAttachment, *AttachmentBody, error) {
	if t.Method != TransferDownload {
		return nil, nil, transferRefused("Only a download URL gives bytes", "Use the download_url the API returned")
	}
	if err := s.VerifyTransfer(ctx, t); err != nil {
		return nil, nil, err
	}
	return s.AttachmentContent(ctx, t.AttachmentID)
}

// CompleteAttachment marks a pending attachment uploaded once its bytes
// have arrived, and records a "ticket_attachment uploaded" audit event.
// Bytes that are not exactly the declared size make it failed (its bytes
// dropped; upload again with a new initiate) and answer
// CodeInvalidParameters, as do no bytes yet (it stays pending) and an
// upload window that ended. Completing an uploaded attachment again
// returns it unchanged. The ticket's owner (or a member) and support
// staff complete.
func (s *Store) CompleteAttachment(ctx context.Context, actor Actor, ticketID, id string) (*TicketAttachment, error) {
	if err := mayAttach(actor, false); err != nil {
		return nil, err
	}
	var a *TicketAttachment
	var mismatch error
	err := s.write(ctx, func(tx *gorm.DB) error {
		var err error
		if _, a, err = findAttachment(tx, actor, ticketID, id, true); err != nil {
			return err
		}
		switch a.Status {
		case AttachmentUploaded:
			return nil
		case AttachmentFailed:
			return Errorf(CodeInvalidParameters, "Attachment %q failed: its upload did not match the declared size; initiate a new one", id)
		}
		if !s.Now().Before(a.UploadExpiresAt) {
			return Errorf(CodeInvalidParameters, "Attachment %q was not uploaded within its upload window; initiate the upload again", id)
		}
		var received []int64
		if err := tx.Model(&TicketAttachmentContent{}).Where("attachment_id = ?", a.ID).Pluck("size_bytes", &received).Error; err != nil {
			return err
		}
		if len(received) == 0 {
			return Errorf(CodeInvalidParameters, "Attachment %q has no bytes yet: upload the file to its upload_url first", id)
		}
		if received[0] != a.SizeBytes {
			mismatch = Errorf(CodeInvalidParameters, "Attachment %q received %d bytes but declared %d; it is marked failed, initiate a new upload",
				id, received[0], a.SizeBytes)
			a.Status = AttachmentFailed
			if err := deleteContent(tx, []string{a.ID}); err != nil {
				return err
			}
			return tx.Model(a).Update("status", a.Status).Error
		}
		now := s.Now()
		a.Status, a.UploadedAt = AttachmentUploaded, &now
		if err := tx.Model(a).Updates(map[string]any{"status": a.Status, "uploaded_at": now}).Error; err != nil {
			return err
		}
		details := map[string]any{"ticket_id": a.TicketID, "filename": a.Filename, "content_type": a.ContentType, "size_bytes": a.SizeBytes}
		account := a.AccountID
		if a.Internal { // outside the account's log, which the owner reads, as its note is
			account, details["account_id"], details["internal"] = "", a.AccountID, true
		}
		return s.audit(tx, actor, account, "ticket_attachment", "uploaded",
			[]string{lrn("ticket_attachment", a.ID), lrn("ticket", a.TicketID)}, details)
	})
	if err != nil {
		return nil, err
	}
	if mismatch != nil {
		return nil, mismatch
	}
	return a, nil
}

// DeleteAttachment removes an attachment's bytes and marks it deleted
// (listed only under status=deleted), and records a "ticket_attachment
// deleted" audit event. Only the ticket's owner deletes; a deleted or
// unknown attachment is CodeNotFound.
func (s *Store) DeleteAttachment(ctx context.Context, actor Actor, ticketID, id string) error {
	if _, err := actor.operates(); err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		_, a, err := findAttachment(tx, actor, ticketID, id, true)
		if err != nil {
			return err
		}
		if err := deleteContent(tx, []string{a.ID}); err != nil {
			return err
		}
		now := s.Now()
		if err := tx.Model(a).Updates(map[string]any{"status": AttachmentDeleted, "deleted_at": now}).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, a.AccountID, "ticket_attachment", "deleted",
			[]string{lrn("ticket_attachment", a.ID), lrn("ticket", a.TicketID)},
			map[string]any{"ticket_id": a.TicketID, "filename": a.Filename, "previous_status": a.Status})
	})
}

// AttachFile is the dashboard's one-step upload: initiate, store the
// bytes and complete, the same operations the API's three steps call.
// A failure after initiate leaves a pending attachment that expires.
func (s *Store) AttachFile(ctx context.Context, actor Actor, ticketID string, in InitiateAttachmentInput, data []byte) (*TicketAttachment, error) {
	return s.attachFile(ctx, actor, ticketID, in, data, false)
}

// AttachToReply attaches the file support sent with the composer's
// message of kind (ReplyPublic or ReplyNote): a file sent with an
// internal note is internal, seen by staff alone; one sent with a reply is
// the customer's to read like the reply. Staff only.
func (s *Store) AttachToReply(ctx context.Context, actor Actor, ticketID, kind string, in InitiateAttachmentInput, data []byte) (*TicketAttachment, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff use the composer; owners comment")
	}
	if kind != ReplyPublic && kind != ReplyNote {
		return nil, InvalidField("kind", fmt.Sprintf("must be reply or note, not %q", kind))
	}
	return s.attachFile(ctx, actor, ticketID, in, data, kind == ReplyNote)
}

func (s *Store) attachFile(ctx context.Context, actor Actor, ticketID string, in InitiateAttachmentInput, data []byte, internal bool) (*TicketAttachment, error) {
	in.SizeBytes = int64(len(data))
	a, _, err := s.initiateAttachment(ctx, actor, ticketID, in, internal)
	if err != nil {
		return nil, err
	}
	if err := s.receive(ctx, a, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	return s.CompleteAttachment(ctx, actor, ticketID, a.ID)
}

// mayAttach says whether the actor attaches files: owners and members to
// their account's tickets, support staff (and the operator) to any; only
// staff attach internal files. Viewers and users without an account are
// refused as operates refuses them.
func mayAttach(actor Actor, internal bool) error {
	if actor.isStaff() {
		return nil
	}
	if internal {
		return Errorf(CodeForbidden, "Only support staff attach files to internal notes")
	}
	_, err := actor.operates()
	return err
}

// pruneBatch bounds one pruning transaction.
const pruneBatch = 500

// PruneExpiredAttachments deletes pending attachments whose upload window
// has ended, with any bytes sent to them, and returns how many went. The
// server's retention job calls it.
func (s *Store) PruneExpiredAttachments(ctx context.Context) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.write(ctx, func(tx *gorm.DB) error {
			var ids []string
			if err := tx.Model(&TicketAttachment{}).Where("status = ? AND upload_expires_at <= ?", AttachmentPending, s.Now()).
				Limit(pruneBatch).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
				return err
			}
			if err := deleteContent(tx, ids); err != nil {
				return err
			}
			res := tx.Where("id IN ?", ids).Delete(&TicketAttachment{})
			n = res.RowsAffected
			return res.Error
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}

// deleteContent deletes the bytes of the attachments ids: their content
// rows and every chunk, of finished uploads or not.
func deleteContent(tx *gorm.DB, ids []string) error {
	if err := tx.Where("attachment_id IN ?", ids).Delete(&TicketAttachmentChunk{}).Error; err != nil {
		return err
	}
	return tx.Where("attachment_id IN ?", ids).Delete(&TicketAttachmentContent{}).Error
}
