package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"gorm.io/gorm"
)

// AttachmentChunkSize is how much of an upload the server holds at once:
// each piece is written to the database in a transaction of its own, so a
// 25 MiB upload costs 1 MiB of memory and never holds the writer while
// the client sends.
const AttachmentChunkSize = 1 << 20

// UploadTarget is the attachment a verified upload URL names. Only
// UploadTarget (the method) makes one, so holding one means the URL's
// signature and expiry were checked.
type UploadTarget struct {
	attachment TicketAttachment
}

// AccountID is the account the attachment belongs to, whose limits the
// upload counts against.
func (u *UploadTarget) AccountID() string { return u.attachment.AccountID }

// Size is the attachment's declared size: the most bytes the upload takes.
func (u *UploadTarget) Size() int64 { return u.attachment.SizeBytes }

// UploadTooLargeError is an upload whose body went past its declared
// size. It is CodeInvalidParameters, which the transfer route answers 413.
type UploadTooLargeError struct{ err *Error }

func (e *UploadTooLargeError) Error() string { return e.err.Error() }
func (e *UploadTooLargeError) Unwrap() error { return e.err }

func uploadTooLarge(declared int64) error {
	return &UploadTooLargeError{&Error{Code: CodeInvalidParameters,
		Message:    fmt.Sprintf("The upload is larger than the %d bytes its URL declares", declared),
		Suggestion: "Initiate the attachment with the file's exact size_bytes"}}
}

// UploadTarget checks a presigned upload's URL before any of its body is
// read: the signature and expiry (CodeForbidden), and that the attachment
// still exists (CodeNotFound). TakesBytes then says whether it takes them.
func (s *Store) UploadTarget(ctx context.Context, t *AttachmentTransfer) (*UploadTarget, error) {
	if t.Method != TransferUpload {
		return nil, transferRefused("Only an upload URL takes bytes", "Use the upload_url initiate returned")
	}
	if err := s.VerifyTransfer(ctx, t); err != nil {
		return nil, err
	}
	var a TicketAttachment
	err := s.read(ctx).Where("id = ?", t.AttachmentID).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) { // expired and pruned
		return nil, attachmentNotFound(t.AttachmentID)
	} else if err != nil {
		return nil, err
	}
	return &UploadTarget{attachment: a}, nil
}

// TakesBytes fails unless target takes an upload now: pending, within
// its window, and not sent to already (CodeConflict: a URL takes one
// body). ReceiveAttachment checks it again as it stores the last chunk.
func (s *Store) TakesBytes(ctx context.Context, target *UploadTarget) error {
	return s.takesBytes(s.read(ctx), &target.attachment)
}

// takesBytes fails unless a is pending, within its upload window, and has
// received no bytes yet.
func (s *Store) takesBytes(db *gorm.DB, a *TicketAttachment) error {
	switch {
	case a.Status != AttachmentPending:
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("Attachment %q is %s and takes no more bytes", a.ID, a.Status),
			Suggestion: "Initiate a new attachment to upload another file"}
	case !s.Now().Before(a.UploadExpiresAt):
		return transferRefused("The attachment's upload window has ended", "Initiate the upload again")
	}
	var received int64
	if err := db.Model(&TicketAttachmentContent{}).Where("attachment_id = ?", a.ID).Count(&received).Error; err != nil {
		return err
	}
	if received > 0 {
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("Attachment %q has received its bytes: its upload URL takes no more", a.ID),
			Suggestion: "Complete the attachment, or initiate a new one to upload another file"}
	}
	return nil
}

// ReceiveAttachment stores the body of an upload to target as it is
// read, AttachmentChunkSize bytes at a time, each in a short transaction.
// The chunks become the attachment's bytes only in the last transaction,
// which checks again that it takes them; until then nothing reads them,
// and on any failure they are deleted. A body past the declared size is
// UploadTooLargeError; one that ends short of it (a client whose
// connection dropped) or breaks is CodeInvalidParameters, and stores
// nothing, so the URL takes the body again.
func (s *Store) ReceiveAttachment(ctx context.Context, target *UploadTarget, body io.Reader) error {
	return s.receive(ctx, &target.attachment, body)
}

func (s *Store) receive(ctx context.Context, a *TicketAttachment, body io.Reader) (err error) {
	upload := NewID()
	chunks := int64(0)
	defer func() {
		if err != nil && chunks > 0 {
			s.dropUpload(ctx, a.ID, upload)
		}
	}()
	buf := make([]byte, min(AttachmentChunkSize, a.SizeBytes+1))
	limited := io.LimitReader(body, a.SizeBytes+1)
	var total int64
	for {
		n, readErr := fill(limited, buf)
		total += int64(n)
		if total > a.SizeBytes {
			return uploadTooLarge(a.SizeBytes)
		}
		if n > 0 {
			if err := s.storeChunk(ctx, a.ID, upload, chunks, buf[:n]); err != nil {
				return err
			}
			chunks++
		}
		// Only io.EOF is the body's end: a connection that drops
		// mid-body ends it too (io.ErrUnexpectedEOF, or io.EOF at the
		// end of what arrived), which the size check below catches.
		if readErr == io.EOF {
			break
		} else if readErr != nil {
			return uploadUnreadable(readErr)
		}
	}
	if total != a.SizeBytes {
		return &Error{Code: CodeInvalidParameters,
			Message:    fmt.Sprintf("The upload's body ended after %d of the %d bytes its URL declares", total, a.SizeBytes),
			Suggestion: "Send the whole file again to the same upload_url"}
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		var locked TicketAttachment
		err := tx.Clauses(forUpdate).Where("id = ?", a.ID).Take(&locked).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return attachmentNotFound(a.ID)
		} else if err != nil {
			return err
		}
		if err := s.takesBytes(tx, &locked); err != nil {
			return err
		}
		// Attempts that failed before cleaning up after themselves (the
		// process stopped) go with this one's success.
		if err := tx.Where("attachment_id = ? AND upload_id <> ?", a.ID, upload).Delete(&TicketAttachmentChunk{}).Error; err != nil {
			return err
		}
		return tx.Create(&TicketAttachmentContent{AttachmentID: a.ID, SizeBytes: total, Data: []byte{}, UploadID: upload}).Error
	})
}

// fill reads into buf until it is full or the body ends or fails; unlike
// io.ReadFull it tells a clean end (io.EOF) from a broken one.
func fill(body io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := body.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// uploadUnreadable is an upload whose body did not arrive whole: it stores
// nothing, so the same URL can be sent to again.
func uploadUnreadable(cause error) error {
	return &Error{Code: CodeInvalidParameters, Message: "The upload's body could not be read to its end",
		Suggestion: "Send the whole file again to the same upload_url", cause: cause}
}

// storeChunk writes one piece of an upload, while its attachment still
// takes bytes (an attachment deleted or pruned meanwhile ends the upload).
func (s *Store) storeChunk(ctx context.Context, id, upload string, seq int64, data []byte) error {
	err := s.write(ctx, func(tx *gorm.DB) error {
		var pending int64
		if err := tx.Model(&TicketAttachment{}).Where("id = ? AND status = ?", id, AttachmentPending).Count(&pending).Error; err != nil {
			return err
		}
		if pending == 0 {
			return attachmentNotFound(id)
		}
		return tx.Create(&TicketAttachmentChunk{AttachmentID: id, UploadID: upload, Seq: seq, Data: data}).Error
	})
	if err == nil {
		s.db.WroteLarge(len(data))
	}
	return err
}

// dropUpload deletes the chunks of a failed upload. It runs after the
// request may have ended, so on a context of its own; should it fail, the
// chunks are invisible anyway and go with the attachment's next upload or
// its pruning.
func (s *Store) dropUpload(ctx context.Context, id, upload string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dropUploadTimeout)
	defer cancel()
	_ = s.write(ctx, func(tx *gorm.DB) error {
		return tx.Where("attachment_id = ? AND upload_id = ?", id, upload).Delete(&TicketAttachmentChunk{}).Error
	})
}

const dropUploadTimeout = 10 * time.Second

// AttachmentBody is an uploaded attachment's bytes, read one chunk at a
// time, each in a short query of its own: a download holds one chunk of
// memory however large the file, and never holds a database connection
// while the client reads slowly. An attachment deleted while it is read
// ends the body early with an error (the server then cuts the response
// short, which the client sees against Content-Length).
type AttachmentBody struct {
	store   *Store
	ctx     context.Context
	content TicketAttachmentContent
	seq     int64  // the next chunk to read
	read    int64  // bytes taken from the database so far
	chunk   []byte // what is left of the chunk being sent
	buf     []byte // the chunk read last, reused for the next
}

// chunkReadsAtOnce is how many downloads read a chunk from the database
// at once; the others send what they hold meanwhile. Each read costs the
// driver's copy of the chunk besides the body's buffer, so with many
// downloads at once this bounds their garbage, not only their buffers.
const chunkReadsAtOnce = 4

// attachmentChunkReadTimeout bounds reading one chunk: the body is read
// after the request's handler returned, outside its deadline.
const attachmentChunkReadTimeout = 30 * time.Second

// Size is the attachment's length in bytes, its Content-Length.
func (b *AttachmentBody) Size() int64 { return b.content.SizeBytes }

// Read gives the attachment's bytes, reading the next chunk when the last
// one was sent.
func (b *AttachmentBody) Read(p []byte) (int, error) {
	if len(b.chunk) == 0 {
		if b.read == b.content.SizeBytes {
			return 0, io.EOF
		}
		chunk, err := b.nextChunk()
		if err != nil {
			return 0, err
		}
		if len(chunk) == 0 || b.read+int64(len(chunk)) > b.content.SizeBytes {
			return 0, fmt.Errorf("attachment %s: stored bytes differ from its %d bytes", b.content.AttachmentID, b.content.SizeBytes)
		}
		b.chunk, b.read = chunk, b.read+int64(len(chunk))
	}
	n := copy(p, b.chunk)
	b.chunk = b.chunk[n:]
	return n, nil
}

func (b *AttachmentBody) nextChunk() ([]byte, error) {
	ctx, cancel := context.WithTimeout(b.ctx, attachmentChunkReadTimeout)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case b.store.chunkReads <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-b.store.chunkReads }()
	if b.content.UploadID == "" { // stored whole, before chunks existed
		var c TicketAttachmentContent
		err := b.store.read(ctx).Select("data").Where("attachment_id = ?", b.content.AttachmentID).Take(&c).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, attachmentNotFound(b.content.AttachmentID)
		}
		return c.Data, err
	}
	rows, err := b.store.read(ctx).Model(&TicketAttachmentChunk{}).Select("data").
		Where("attachment_id = ? AND upload_id = ? AND seq = ?", b.content.AttachmentID, b.content.UploadID, b.seq).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, attachmentNotFound(b.content.AttachmentID) // deleted meanwhile
	}
	// Copied from the driver's bytes into the body's one buffer: scanning
	// into a fresh []byte would allocate each chunk once more, and with
	// many downloads at once that garbage is most of their memory.
	var data sql.RawBytes
	if err := rows.Scan(&data); err != nil {
		return nil, err
	}
	b.buf = append(b.buf[:0], data...)
	b.seq++
	return b.buf, rows.Close()
}
