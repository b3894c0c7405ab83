package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// upload posts the dashboard's attachment form with one file.
func (b *browser) upload(ticketID, filename, contentType string, data []byte) *page {
	b.e.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf_token", b.csrf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+filename+`"`)
	h.Set("Content-Type", contentType)
	part, err := w.CreatePart(h)
	if err != nil {
		b.e.t.Fatal(err)
	}
	_, _ = part.Write(data)
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, "/tickets/"+ticketID+"/attachments", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.send(req)
}

var downloadLink = regexp.MustCompile(`href="(/tickets/[0-9a-f]+/attachments/[0-9a-f]+/download)"`)

// An owner attaches a file, support staff see and download it, the owner
// deletes it after confirming.
func TestTicketAttachmentsInTheDashboard(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "Disk full")
	b := e.signedIn("ada@example.com")
	b.get("/tickets/"+tk.ID).expect(http.StatusOK).contains("No files attached.", `enctype="multipart/form-data"`)
	b.upload(tk.ID, "df.txt", "text/plain", []byte("100% used")).redirectsTo("/tickets/" + tk.ID)
	page := b.get("/tickets/"+tk.ID).contains("df.txt", "9 B · text/plain", "File “df.txt” attached.")
	link := downloadLink.FindStringSubmatch(page.Body)
	if link == nil {
		t.Fatalf("no download link:\n%s", page.Body)
	}

	staff := e.signedIn("help@example.com")
	// Staff attach from the composer, but delete nobody's file.
	staff.get("/tickets/"+tk.ID).contains("df.txt", "Attach a file (optional)").lacks("/delete")
	to := staff.get(link[1]).expect(http.StatusSeeOther).Header.Get("Location")
	if !strings.HasPrefix(to, "/attachments/") {
		t.Fatalf("download leads to %q", to)
	}
	file := staff.get(to).expect(http.StatusOK)
	if file.Body != "100% used" || file.Header.Get("Content-Disposition") != "attachment; filename=df.txt" ||
		file.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("download: %q %v", file.Body, file.Header)
	}
	staff.post(strings.Replace(link[1], "/download", "/delete", 1), nil).expect(http.StatusForbidden)

	del := strings.Replace(link[1], "/download", "/delete", 1)
	b.get(del).expect(http.StatusOK).contains("Delete “df.txt”?", "This cannot be undone.")
	b.post(del, nil).redirectsTo("/tickets/" + tk.ID)
	b.get("/tickets/"+tk.ID).contains("No files attached.", "Attachment “df.txt” deleted.")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "ticket_attachment"); n != 2 {
		t.Errorf("%d audit events, want 2", n)
	}
}

func TestTicketAttachmentRefusedInTheDashboard(t *testing.T) {
	e := newEnv(t, withConfig(func(c *models.Config) { c.AttachmentCountQuota = 1 }))
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Disk full")
	b := e.signedIn("ada@example.com")
	b.get("/tickets/" + tk.ID)
	b.upload(tk.ID, "empty.txt", "text/plain", nil).expect(http.StatusUnprocessableEntity).
		fieldError("file", "Attach a file must be at least 1 (an empty file cannot be attached).")
	b.upload(tk.ID, "a.txt", "not a type", []byte("x")).expect(http.StatusUnprocessableEntity).contains("is not a media type")
	b.upload(tk.ID, "a.txt", "text/plain", []byte("x")).expect(http.StatusSeeOther)
	b.upload(tk.ID, "b.txt", "text/plain", []byte("y")).expect(http.StatusUnprocessableEntity).
		contains("quota of 1 ticket attachments")
	other := e.owner("bob@example.com")
	theirs := e.ticket(other, "Theirs")
	b.upload(theirs.ID, "c.txt", "text/plain", []byte("z")).expect(http.StatusNotFound)
}
