package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// postWithFile posts a multipart form, as the new-ticket and comment forms
// send it, with fields and, unless filename is "", a file in the
// "attachment" field.
func (b *browser) postWithFile(path string, fields map[string]string, filename string, data []byte) *page {
	b.e.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf_token", b.csrf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="attachment"; filename="`+filename+`"`)
	h.Set("Content-Type", "text/plain")
	part, err := w.CreatePart(h)
	if err != nil {
		b.e.t.Fatal(err)
	}
	_, _ = part.Write(data)
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.send(req)
}

// A file chosen while opening a ticket or writing a comment is attached
// with it, and shows in the conversation right after the text it came
// with; a comment without a file still works, and a file alone too.
func TestAttachWhileWriting(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	b := e.signedIn("ada@example.com")
	b.get("/tickets/new").expect(http.StatusOK).contains(`enctype="multipart/form-data"`, `name="attachment"`, "Attach a file (optional)")
	res := b.postWithFile("/tickets", map[string]string{"subject": "GPU gone", "type": "service_request",
		"description": "nvidia-smi shows nothing."}, "smi.txt", []byte("No devices were found")).expect(http.StatusSeeOther)
	ticket := res.Header.Get("Location")
	page := b.get(ticket).expect(http.StatusOK).contains("Ticket opened. “smi.txt” is attached.", `name="attachment"`)
	thread := threadOf(t, page.Body)
	if !inOrder(thread, "nvidia-smi shows nothing.", "smi.txt") {
		t.Fatalf("the file does not follow the ticket's description in the conversation:\n%s", thread)
	}

	e.clock.Advance(time.Minute)
	b.postWithFile(ticket+"/comments", map[string]string{"comment": "Here is dmesg."}, "dmesg.log", []byte("NVRM: GPU has fallen off the bus")).
		expect(http.StatusSeeOther)
	e.clock.Advance(time.Minute)
	b.postWithFile(ticket+"/comments", map[string]string{"comment": "And that is all."}, "", nil).expect(http.StatusSeeOther)
	e.clock.Advance(time.Minute)
	b.postWithFile(ticket+"/comments", map[string]string{"comment": " "}, "later.txt", []byte("later")).expect(http.StatusSeeOther)
	page = b.get(ticket).contains("File “later.txt” attached.")
	thread = threadOf(t, page.Body)
	if !inOrder(thread, "smi.txt", "Here is dmesg.", "dmesg.log", "And that is all.", "later.txt") {
		t.Fatalf("files are not where they were added:\n%s", thread)
	}
	// Support staff read the same conversation, files in place.
	staff := e.signedIn("help@example.com")
	thread = threadOf(t, staff.get(ticket).expect(http.StatusOK).Body)
	if !inOrder(thread, "Here is dmesg.", "dmesg.log", "And that is all.") || !strings.Contains(thread, "/download") {
		t.Fatalf("support's conversation:\n%s", thread)
	}
	atts, err := e.store.TicketAttachments(context.Background(), models.OperatorActor, strings.TrimPrefix(ticket, "/tickets/"))
	if err != nil || len(atts) != 3 {
		t.Fatalf("%d attachments, want 3: %v", len(atts), err)
	}
}

// A refused file is said beside the field; the comment it came with is
// kept (and said so), a file alone sends nothing.
func TestAttachWhileWritingRefused(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Disk full")
	b := e.signedIn("ada@example.com")
	b.get("/tickets/" + tk.ID)
	b.postWithFile("/tickets/"+tk.ID+"/comments", map[string]string{"comment": "See the file."}, "empty.txt", nil).
		expect(http.StatusUnprocessableEntity).contains("Your comment was added. The file was not attached").
		fieldError("attachment", "Attach a file (optional) must be at least 1 (an empty file cannot be attached).")
	b.postWithFile("/tickets/"+tk.ID+"/comments", map[string]string{"comment": ""}, "empty-too.txt", nil).
		expect(http.StatusUnprocessableEntity).contains("Nothing was sent.")
	page := b.get("/tickets/"+tk.ID).contains("See the file.", "No files attached.")
	if strings.Count(page.Body, "See the file.") != 1 {
		t.Fatalf("the comment was sent twice or not at all")
	}
}

// threadOf is a ticket page's conversation.
func threadOf(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `<ol class="thread">`)
	thread, _, ok2 := strings.Cut(rest, "</ol>")
	if !ok || !ok2 {
		t.Fatalf("no conversation in:\n%s", body)
	}
	return thread
}

// inOrder reports whether s holds each of parts, in this order.
func inOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
