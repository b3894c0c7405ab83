package models

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Attachment upload statuses, as the reference names them. An attachment
// is pending from initiate until complete makes it uploaded (or failed,
// when the bytes do not match the declared size); deleted keeps the
// metadata of a removed file, whose bytes are gone.
const (
	AttachmentPending  = "pending"
	AttachmentUploaded = "uploaded"
	AttachmentFailed   = "failed"
	AttachmentDeleted  = "deleted"
)

// AttachmentStatuses lists every status.
var AttachmentStatuses = []string{AttachmentPending, AttachmentUploaded, AttachmentFailed, AttachmentDeleted}

// Attachment limits. A file is at most MaxAttachmentSize bytes; an upload
// is stored as it arrives, AttachmentChunkSize bytes at a time.
const (
	MaxAttachmentSize     = 25 << 20
	MaxAttachmentFilename = 255
	MaxAttachmentType     = 255
	// AttachmentUploadLifetime is how long an upload URL works; a pending
	// attachment not completed by then no longer counts against the quota
	// and is removed by PruneExpiredAttachments.
	AttachmentUploadLifetime = time.Hour
	// AttachmentDownloadLifetime is how long a download URL works.
	AttachmentDownloadLifetime = 15 * time.Minute
)

// Per-account attachment quotas a store uses when its Config sets none.
const (
	DefaultAttachmentCountQuota = 200
	DefaultAttachmentBytesQuota = 1 << 30
)

// TicketAttachment is a file attached to a ticket. Its bytes are in
// TicketAttachmentContent.
type TicketAttachment struct {
	ID              string     `gorm:"primaryKey;size:32"`
	TicketID        string     `gorm:"size:32;not null;index:idx_ticket_attachments_ticket,priority:1"`
	AccountID       string     `gorm:"size:32;not null;index:idx_ticket_attachments_account,priority:1"`
	CreatedByUserID string     `gorm:"size:32;not null"`
	Filename        string     `gorm:"size:255;not null"`
	ContentType     string     `gorm:"size:255;not null"`
	SizeBytes       int64      `gorm:"not null"`
	Status          string     `gorm:"size:16;not null;index:idx_ticket_attachments_account,priority:2;index:idx_ticket_attachments_expiry,priority:1"`
	CreatedAt       time.Time  `gorm:"not null;autoCreateTime:false;index:idx_ticket_attachments_ticket,priority:2"`
	UploadExpiresAt time.Time  `gorm:"not null;index:idx_ticket_attachments_expiry,priority:2"`
	UploadedAt      *time.Time // set by complete
	DeletedAt       *time.Time // a plain time, not gorm.DeletedAt: deletes are explicit
	// Internal is a file support staff attached to an internal note: only
	// staff list, open and download it, as they alone read the note.
	Internal bool `gorm:"not null;default:false"`
}

// TicketAttachmentContent records that an attachment's bytes arrived:
// the chunks of upload UploadID. (Contents stored before chunks existed
// have UploadID "" and their bytes in Data.) The bytes are in the
// database rather than on a disk so that every replica can serve them,
// and a backup or `cloudplane copy` carries them with the rest.
type TicketAttachmentContent struct {
	AttachmentID string `gorm:"primaryKey;size:32"`
	SizeBytes    int64  `gorm:"not null"` // the bytes received, read without loading them
	Data         []byte `gorm:"not null"`
	UploadID     string `gorm:"size:32;not null;default:''"`
}

// TicketAttachmentChunk is one piece of an upload, in order by Seq. The
// chunks of an upload that has not finished (or failed) are read by
// nobody: only the upload its TicketAttachmentContent names is the file.
type TicketAttachmentChunk struct {
	AttachmentID string `gorm:"primaryKey;size:32"`
	UploadID     string `gorm:"primaryKey;size:32"`
	Seq          int64  `gorm:"primaryKey;autoIncrement:false"`
	Data         []byte `gorm:"not null"`
}

// InitiateAttachmentInput is the reference's AttachmentInitiateRequest.
type InitiateAttachmentInput struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	SizeBytes   int64  `json:"size_bytes"`
}

// Validate checks the input and normalises the content type. A filename
// is a name, never a path: no separators, no control characters, no dot
// names. The content type must be a media type (type/subtype).
func (in *InitiateAttachmentInput) Validate() error {
	var f FieldErrors
	if msg := filenameProblem(in.Filename); msg != "" {
		f.Add("filename", msg)
	}
	if ct, msg := normaliseMediaType(in.ContentType); msg != "" {
		f.Add("content_type", msg)
	} else {
		in.ContentType = ct
	}
	switch {
	case in.SizeBytes < 1:
		f.Add("size_bytes", "must be at least 1 (an empty file cannot be attached)")
	case in.SizeBytes > MaxAttachmentSize:
		f.Add("size_bytes", fmt.Sprintf("must be at most %d (25 MiB), got %d", MaxAttachmentSize, in.SizeBytes))
	}
	return f.Err()
}

func filenameProblem(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "is required"
	case !utf8.ValidString(name):
		return "must be UTF-8 text"
	case utf8.RuneCountInString(name) > MaxAttachmentFilename:
		return fmt.Sprintf("must be at most %d characters", MaxAttachmentFilename)
	case strings.ContainsAny(name, `/\`):
		return "must be a file name, without / or \\"
	case name == "." || name == "..":
		return "must be a file name, not . or .."
	case name != strings.TrimSpace(name):
		return "must not start or end with spaces"
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return "must not contain control characters"
		}
	}
	return ""
}

// normaliseMediaType returns ct in canonical form (lowercase, parameters
// quoted as needed), or why it is no media type.
func normaliseMediaType(ct string) (string, string) {
	if strings.TrimSpace(ct) == "" {
		return "", "is required (such as application/gzip or text/plain)"
	}
	if len(ct) > MaxAttachmentType {
		return "", fmt.Sprintf("must be at most %d characters", MaxAttachmentType)
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || strings.Count(mt, "/") != 1 || strings.HasPrefix(mt, "/") || strings.HasSuffix(mt, "/") {
		return "", fmt.Sprintf("%q is not a media type such as application/gzip or text/plain", ct)
	}
	out := mime.FormatMediaType(mt, params)
	if out == "" || len(out) > MaxAttachmentType {
		return "", fmt.Sprintf("%q is not a media type such as application/gzip or text/plain", ct)
	}
	return out, ""
}

// DownloadFilename is the attachment's name as a Content-Disposition
// header gives it: always an attachment (never shown inline, so an
// uploaded page cannot run in the dashboard's origin), the name quoted,
// and non-ASCII names in RFC 2231 form.
func (a *TicketAttachment) DownloadFilename() string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename}); v != "" {
		return v
	}
	return "attachment"
}

func attachmentNotFound(id string) error {
	e := NotFound("attachment", id)
	e.Suggestion = "List the ticket's attachments with GET /api/v1/tickets/{ticket_id}/attachments"
	return e
}

// findAttachment reads an attachment of a ticket the actor may see,
// locked for update when lock is set. A deleted attachment is not found.
func findAttachment(tx *gorm.DB, actor Actor, ticketID, id string, lock bool) (*Ticket, *TicketAttachment, error) {
	t, err := findTicket(tx, actor, ticketID, lock)
	if err != nil {
		return nil, nil, err
	}
	if !IsID(id) {
		return nil, nil, attachmentNotFound(id)
	}
	q := visibleAttachments(tx.Where("id = ? AND ticket_id = ? AND status <> ?", id, t.ID, AttachmentDeleted), actor)
	if lock {
		q = q.Clauses(forUpdate)
	}
	var a TicketAttachment
	if err := q.Take(&a).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, attachmentNotFound(id)
	} else if err != nil {
		return nil, nil, err
	}
	return t, &a, nil
}

// TicketAttachments lists a ticket's attachments, oldest first: the
// uploaded ones, or those in the given statuses. Owners list their
// account's tickets' attachments; support staff any ticket's. Another
// account's ticket is CodeTicketNotFound; an unknown status,
// CodeInvalidParameters.
func (s *Store) TicketAttachments(ctx context.Context, actor Actor, ticketID string, statuses ...string) ([]TicketAttachment, error) {
	if len(statuses) == 0 {
		statuses = []string{AttachmentUploaded}
	}
	for _, st := range statuses {
		if !validAttachmentStatus(st) {
			return nil, InvalidField("status", fmt.Sprintf("must be pending, uploaded, failed or deleted, not %q", st))
		}
	}
	t, err := findTicket(s.read(ctx), actor, ticketID, false)
	if err != nil {
		return nil, err
	}
	out := []TicketAttachment{}
	err = visibleAttachments(s.read(ctx).Where("ticket_id = ? AND status IN ?", t.ID, statuses), actor).
		Order("created_at, id").Find(&out).Error
	return out, err
}

// visibleAttachments limits q to the attachments the actor may see: staff
// every one, anyone else none of the internal ones (they do not exist for
// them: not listed, not found, no download URL).
func visibleAttachments(q *gorm.DB, actor Actor) *gorm.DB {
	if actor.isStaff() {
		return q
	}
	return q.Where("internal = ?", false)
}

func validAttachmentStatus(st string) bool {
	for _, s := range AttachmentStatuses {
		if s == st {
			return true
		}
	}
	return false
}

// TicketAttachment returns one attachment of a ticket the actor may see
// (not a deleted one), or CodeTicketNotFound / CodeNotFound.
func (s *Store) TicketAttachment(ctx context.Context, actor Actor, ticketID, id string) (*TicketAttachment, error) {
	_, a, err := findAttachment(s.read(ctx), actor, ticketID, id, false)
	return a, err
}

// AttachmentDownload returns an uploaded attachment and a presigned,
// expiring URL query to download it: owners for their account's tickets,
// support staff for any. An attachment not yet uploaded (or failed) is
// CodeInvalidParameters: there is nothing to download.
func (s *Store) AttachmentDownload(ctx context.Context, actor Actor, ticketID, id string) (*TicketAttachment, *AttachmentTransfer, error) {
	a, err := s.TicketAttachment(ctx, actor, ticketID, id)
	if err != nil {
		return nil, nil, err
	}
	if a.Status != AttachmentUploaded {
		return nil, nil, Errorf(CodeInvalidParameters, "Attachment %q is %s: only an uploaded attachment can be downloaded", id, a.Status)
	}
	tr, err := s.signTransfer(ctx, TransferDownload, a.ID, s.Now().Add(AttachmentDownloadLifetime), 0)
	if err != nil {
		return nil, nil, err
	}
	return a, tr, nil
}

// AttachmentContent returns an uploaded attachment with its bytes, for a
// download URL that VerifyTransfer accepted: the URL is the permission.
// The bytes are read as the body is (AttachmentBody), on a context that
// outlives ctx's cancelling: a response's body is sent after its handler
// returned.
func (s *Store) AttachmentContent(ctx context.Context, id string) (*TicketAttachment, *AttachmentBody, error) {
	var a TicketAttachment
	err := s.read(ctx).Where("id = ? AND status = ?", id, AttachmentUploaded).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil, attachmentNotFound(id)
	} else if err != nil {
		return nil, nil, err
	}
	var c TicketAttachmentContent
	err = s.read(ctx).Select("attachment_id", "size_bytes", "upload_id").Where("attachment_id = ?", id).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) { // deleted meanwhile
		return nil, nil, attachmentNotFound(id)
	} else if err != nil {
		return nil, nil, err
	}
	return &a, &AttachmentBody{store: s, ctx: context.WithoutCancel(ctx), content: c}, nil
}
