package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// attachmentJSON is the reference's Attachment.
type attachmentJSON struct {
	ID           string  `json:"id"`
	Filename     string  `json:"filename"`
	ContentType  string  `json:"content_type"`
	SizeBytes    int64   `json:"size_bytes"`
	UploadStatus string  `json:"upload_status"`
	UploadedAt   *string `json:"uploaded_at,omitempty"`
	CreatedAt    string  `json:"created_at"`
}

func newAttachmentJSON(a models.TicketAttachment) attachmentJSON {
	out := attachmentJSON{ID: a.ID, Filename: a.Filename, ContentType: a.ContentType, SizeBytes: a.SizeBytes,
		UploadStatus: a.Status, CreatedAt: timestamp(a.CreatedAt)}
	if a.UploadedAt != nil {
		at := timestamp(*a.UploadedAt)
		out.UploadedAt = &at
	}
	return out
}

// attachmentInitiatedJSON is the reference's AttachmentInitiateResponse.
type attachmentInitiatedJSON struct {
	AttachmentID string `json:"attachment_id"`
	UploadURL    string `json:"upload_url"`
	UploadMethod string `json:"upload_method"`
	UploadStatus string `json:"upload_status"`
	ExpiresIn    int64  `json:"expires_in"`
}

// attachmentDownloadJSON is the reference's AttachmentDownloadResponse.
type attachmentDownloadJSON struct {
	DownloadURL string `json:"download_url"`
	ExpiresIn   int64  `json:"expires_in"`
}

// TransferURL is where a presigned transfer is served: outside /api/v1,
// since the request carries no API key, on this server's own origin.
func TransferURL(c *fiber.Ctx, t *models.AttachmentTransfer) string {
	return c.BaseURL() + TransferPathPrefix + t.AttachmentID + "?" + t.Query().Encode()
}

// TransferPathPrefix is the path under which presigned URLs are served.
const TransferPathPrefix = "/attachments/"

// InitiateAttachment starts an upload and answers where to send the bytes.
func (h *Handlers) InitiateAttachment(c *fiber.Ctx) error {
	var in models.InitiateAttachmentInput
	if err := decode(c, &in); err != nil {
		return err
	}
	a, tr, err := h.store.InitiateAttachment(c.UserContext(), Actor(c), c.Params("ticket_id"), in)
	if err != nil {
		return err
	}
	return ok(c, attachmentInitiatedJSON{AttachmentID: a.ID, UploadURL: TransferURL(c, tr), UploadMethod: tr.Method,
		UploadStatus: a.Status, ExpiresIn: tr.ExpiresIn(h.store.Now())})
}

// CompleteAttachment marks an upload complete once its bytes arrived.
func (h *Handlers) CompleteAttachment(c *fiber.Ctx) error {
	a, err := h.store.CompleteAttachment(c.UserContext(), Actor(c), c.Params("ticket_id"), c.Params("attachment_id"))
	if err != nil {
		return err
	}
	return ok(c, newAttachmentJSON(*a))
}

// TicketAttachments lists a ticket's attachments: the uploaded ones, or
// those of the status filter (repeatable, or comma-separated).
func (h *Handlers) TicketAttachments(c *fiber.Ctx) error {
	list, err := h.store.TicketAttachments(c.UserContext(), Actor(c), c.Params("ticket_id"), queryList(c, "status")...)
	if err != nil {
		return err
	}
	out := struct {
		Attachments []attachmentJSON `json:"attachments"`
	}{Attachments: make([]attachmentJSON, len(list))}
	for i, a := range list {
		out.Attachments[i] = newAttachmentJSON(a)
	}
	return ok(c, out)
}

// AttachmentDownloadURL answers a presigned, expiring download URL.
func (h *Handlers) AttachmentDownloadURL(c *fiber.Ctx) error {
	_, tr, err := h.store.AttachmentDownload(c.UserContext(), Actor(c), c.Params("ticket_id"), c.Params("attachment_id"))
	if err != nil {
		return err
	}
	return ok(c, attachmentDownloadJSON{DownloadURL: TransferURL(c, tr), ExpiresIn: tr.ExpiresIn(h.store.Now())})
}

// DeleteAttachment deletes an attachment and answers an empty object.
func (h *Handlers) DeleteAttachment(c *fiber.Ctx) error {
	if err := h.store.DeleteAttachment(c.UserContext(), Actor(c), c.Params("ticket_id"), c.Params("attachment_id")); err != nil {
		return err
	}
	return ok(c, struct{}{})
}

// transfer reads the presigned transfer a request names.
func transfer(c *fiber.Ctx, method string) (*models.AttachmentTransfer, error) {
	return models.ParseTransfer(method, strings.Clone(c.Params("id")), func(name string) string {
		return strings.Clone(c.Query(name))
	})
}

// DownloadAttachment serves the bytes of a presigned download URL, as a
// download: Content-Disposition attachment, no sniffing, and a sandbox
// policy, so an uploaded HTML file never runs in the dashboard's origin.
func (h *Handlers) DownloadAttachment(c *fiber.Ctx) error {
	t, err := transfer(c, models.TransferDownload)
	if err != nil {
		return err
	}
	a, body, err := h.store.SendAttachment(c.UserContext(), t)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentDisposition, a.DownloadFilename())
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; sandbox")
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	c.Set(fiber.HeaderContentType, a.ContentType)
	// Streamed a chunk at a time after the handler returns, so a download
	// holds one chunk of memory, not the file.
	c.Context().SetBodyStream(body, int(body.Size()))
	return nil
}
