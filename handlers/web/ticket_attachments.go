package web

import (
	"io"
	"mime/multipart"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// attachments lists a ticket's uploaded files for its page.
func (h *Handlers) attachments(c *fiber.Ctx, ticketID string) ([]views.Attachment, error) {
	list, err := h.store.TicketAttachments(c.UserContext(), actor(c), ticketID)
	if err != nil {
		return nil, err
	}
	out := make([]views.Attachment, len(list))
	for i, a := range list {
		out[i] = views.Attachment{ID: a.ID, TicketID: a.TicketID, Filename: a.Filename, ContentType: a.ContentType, Size: a.SizeBytes, Created: a.CreatedAt, Internal: a.Internal}
		if a.UploadedAt != nil {
			out[i].Uploaded = *a.UploadedAt
		}
	}
	return out, nil
}

// attachFields shows every input field of an upload beside the file.
var attachFields = map[string]string{"filename": "file", "content_type": "file", "size_bytes": "file"}

// UploadAttachment attaches the posted file (a multipart form, which works
// without script) to the owner's ticket, through the same operations as
// the API's initiate, upload and complete. A refused file, or a quota
// reached, is said beside the form (422).
func (h *Handlers) UploadAttachment(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	in, data, err := uploadedFile(c)
	if err == nil {
		_, err = h.store.AttachFile(c.UserContext(), actor(c), id, in, data)
	}
	if err != nil {
		form := views.Form{}
		status, err := formErrorAt(err, &form, attachFields)
		if err != nil {
			return err
		}
		showAt(c, "/tickets/"+id)
		return h.ticketPage(c, status, id, ticketForms{attach: form})
	}
	if err := h.flash(c, "File “"+in.Filename+"” attached."); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}

// uploadedFile reads the form's file: its name and type as the browser
// gave them (the domain validates both) and at most the cap plus one
// byte, so that a file over the cap is refused by size.
func uploadedFile(c *fiber.Ctx) (models.InitiateAttachmentInput, []byte, error) {
	fh, err := c.FormFile("file")
	if err != nil || fh == nil {
		return models.InitiateAttachmentInput{}, nil, models.InvalidField("size_bytes", "choose a file to attach")
	}
	return fileInput(fh)
}

// fileInput reads an uploaded part as uploadedFile does.
func fileInput(fh *multipart.FileHeader) (models.InitiateAttachmentInput, []byte, error) {
	in := models.InitiateAttachmentInput{Filename: fh.Filename, ContentType: fh.Header.Get(fiber.HeaderContentType)}
	if in.ContentType == "" {
		in.ContentType = "application/octet-stream"
	}
	data, err := readPart(fh)
	return in, data, err
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, models.MaxAttachmentSize+1))
}

// DownloadAttachment sends the browser to a presigned download URL of the
// file: owners for their tickets, support staff for any.
func (h *Handlers) DownloadAttachment(c *fiber.Ctx) error {
	_, tr, err := h.store.AttachmentDownload(c.UserContext(), actor(c), c.Params("id"), c.Params("attachment_id"))
	if err != nil {
		return err
	}
	return c.Redirect("/attachments/"+tr.AttachmentID+"?"+tr.Query().Encode(), fiber.StatusSeeOther)
}

// ConfirmDeleteAttachment asks before deleting a file.
func (h *Handlers) ConfirmDeleteAttachment(c *fiber.Ctx) error {
	if err := requireOwner(actor(c)); err != nil {
		return err
	}
	a, err := h.store.TicketAttachment(c.UserContext(), actor(c), c.Params("id"), c.Params("attachment_id"))
	if err != nil {
		return err
	}
	return h.confirm(c, "Delete attachment", views.NavTickets, views.Confirm{
		Title:      "Delete “" + a.Filename + "”?",
		Text:       "Support will no longer be able to download it. This cannot be undone.",
		Action:     "/tickets/" + a.TicketID + "/attachments/" + a.ID + "/delete",
		Submit:     "Delete attachment",
		CancelHref: "/tickets/" + a.TicketID + "#attachments",
	}, false)
}

// DeleteAttachment deletes a file once confirmed and returns to the ticket.
func (h *Handlers) DeleteAttachment(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	a, err := h.store.TicketAttachment(c.UserContext(), actor(c), id, c.Params("attachment_id"))
	if err == nil {
		err = h.store.DeleteAttachment(c.UserContext(), actor(c), id, a.ID)
	}
	if err != nil {
		return err
	}
	if err := h.flash(c, "Attachment “"+a.Filename+"” deleted."); err != nil {
		return err
	}
	return redirect(c, "/tickets/"+id)
}
