package views

import (
	"fmt"
	"time"
)

// Attachment is a file attached to a ticket, as its page lists it.
type Attachment struct {
	ID          string
	TicketID    string
	Filename    string
	ContentType string
	Size        int64
	Uploaded    time.Time
	Created     time.Time // when it was attached: its place in the conversation
	Internal    bool      // sent with an internal note: only support sees it
}

// DownloadHref leads to the file through the dashboard, which sends the
// browser on to a presigned download URL.
func (a Attachment) DownloadHref() string {
	return "/tickets/" + a.TicketID + "/attachments/" + a.ID + "/download"
}

// DeleteHref is the attachment's delete confirmation.
func (a Attachment) DeleteHref() string {
	return "/tickets/" + a.TicketID + "/attachments/" + a.ID + "/delete"
}

// ByteSize writes a size the way people read one: 812 B, 4.2 KiB, 25.0 MiB.
func ByteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
