package web

import (
	"mime/multipart"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/views"
)

// writtenFile is the optional file sent with a new ticket or a comment
// (their "attachment" field), or nil when none was chosen.
func writtenFile(c *fiber.Ctx) *multipart.FileHeader {
	fh, err := c.FormFile("attachment")
	if err != nil || fh == nil || fh.Filename == "" {
		return nil
	}
	return fh
}

// attachWritten attaches the file sent with what was written, through the
// same domain operation (and limits) as the attachments card; nothing
// without a file. It returns the file's name, for the flash.
func (h *Handlers) attachWritten(c *fiber.Ctx, ticketID string) (string, error) {
	fh := writtenFile(c)
	if fh == nil {
		return "", nil
	}
	in, data, err := fileInput(fh)
	if err == nil {
		_, err = h.store.AttachFile(c.UserContext(), actor(c), ticketID, in, data)
	}
	return in.Filename, err
}

// attachReplyFile attaches the file sent with the composer's message of
// kind (a file with an internal note is internal); nothing without a file.
// It returns the file's name, for the flash.
func (h *Handlers) attachReplyFile(c *fiber.Ctx, ticketID, kind string) (string, error) {
	fh := writtenFile(c)
	if fh == nil {
		return "", nil
	}
	in, data, err := fileInput(fh)
	if err == nil {
		_, err = h.store.AttachToReply(c.UserContext(), actor(c), ticketID, kind, in, data)
	}
	return in.Filename, err
}

// writtenFileRefused is the form of a ticket page whose text was saved
// but whose file was refused: the problem beside the field named field,
// and what did happen above it.
func writtenFileRefused(err error, field, saved string) (views.Form, int, error) {
	form := views.Form{}
	status, err := formErrorAt(err, &form, map[string]string{"filename": field, "content_type": field, "size_bytes": field})
	if err != nil {
		return form, 0, err
	}
	form.Message = saved + " The file was not attached: choose it again once fixed."
	return form, status, nil
}

// sentWith is the flash after sending text with or without a file.
func sentWith(done, file string) string {
	if file == "" {
		return done + "."
	}
	return done + ", with “" + file + "”."
}

// onlyFile reports whether a comment form carries a file and no text: the
// file alone is sent.
func onlyFile(c *fiber.Ctx, comment string) bool {
	return writtenFile(c) != nil && strings.TrimSpace(comment) == ""
}
