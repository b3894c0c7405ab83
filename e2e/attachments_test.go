package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// An owner attaches a file to a ticket with the page's plain form,
// downloads it through the page's link (a download, never a page of this
// origin) and deletes it after confirming; the API sees each step.
func TestTicketAttachmentUploadDownloadDelete(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Trace attached", "description": "See the file.", "type": "service_request"}).ok(t, http.StatusOK, &ticket)
	page := []byte("<h1>must not render</h1><script>document.title='ran'</script>")
	file := filepath.Join(t.TempDir(), "trace.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}

	b := s.newTab(t)
	b.signIn(o)
	b.Open("/tickets/" + ticket.ID)
	b.WaitText("#attachments", "No files attached")
	input := b.Find("#attachments", "control", "^Attach a file")
	b.Do("choose the file", chromedp.SetUploadFiles(input, []string{file}))
	b.Press("#attachments", "^Upload$")
	b.WaitText("#flash", "trace.html")
	b.WaitText("#attachments", "trace.html")
	b.Shot("attachment uploaded")

	var got struct {
		Status                     int
		Disposition, NoSniff, Body string
	}
	// The link, followed as the browser would (session cookie, redirect
	// to the presigned URL); a synchronous request, so evalJS can read it.
	b.WaitValue("the download", `(() => {
		const a = document.querySelector("#attachments a[download]");
		const x = new XMLHttpRequest(); x.open("GET", a.href, false); x.send();
		return {Status: x.status, Disposition: x.getResponseHeader("Content-Disposition"),
			NoSniff: x.getResponseHeader("X-Content-Type-Options"), Body: x.responseText};
	})()`, &got)
	if got.Status != http.StatusOK || got.Body != string(page) || got.Disposition != "attachment; filename=trace.html" || got.NoSniff != "nosniff" {
		t.Fatalf("download: %+v", got)
	}

	var list struct {
		Attachments []struct{ Filename string } `json:"attachments"`
	}
	s.api(t, key, http.MethodGet, "/tickets/"+ticket.ID+"/attachments", nil).ok(t, http.StatusOK, &list)
	if len(list.Attachments) != 1 || list.Attachments[0].Filename != "trace.html" {
		t.Fatalf("the API lists %+v", list.Attachments)
	}

	b.confirmRowAction("trace.html", "^Delete", "Delete “trace.html”", "^Delete attachment$", "deleted")
	b.WaitText("#attachments", "No files attached")
	b.Shot("attachment deleted")
	s.api(t, key, http.MethodGet, "/tickets/"+ticket.ID+"/attachments", nil).ok(t, http.StatusOK, &list)
	if len(list.Attachments) != 0 {
		t.Fatalf("the API still lists %+v", list.Attachments)
	}
}
