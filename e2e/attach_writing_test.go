package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An owner attaches a file while replying, in the comment form itself (one
// post); the file shows in the conversation right after the reply, and
// the API lists it.
func TestAttachWhileReplying(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Training stalls", "description": "Every night at 02:00.", "type": "service_request"}).ok(t, http.StatusOK, &ticket)
	file := filepath.Join(t.TempDir(), "nccl-debug.log")
	if err := os.WriteFile(file, []byte("NCCL WARN timeout\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	b := s.newTab(t)
	b.signIn(o)
	b.Open("/tickets/" + ticket.ID)
	b.Fill("main", "^Comment$", "The log of last night is attached.")
	input := b.Find("main", "control", "^Attach a file \\(optional\\)")
	b.Do("choose the file", chromedp.SetUploadFiles(input, []string{file}))
	b.Shot("reply with a file")
	b.Press("main", "^Comment$")
	b.WaitText("#flash", "nccl-debug.log")
	thread := b.Text("main ol")
	reply := strings.Index(thread, "The log of last night is attached.")
	at := strings.LastIndex(thread, "nccl-debug.log")
	if reply < 0 || at < reply {
		b.Fail("the conversation does not show the file after the reply:\n%s", thread)
	}
	var href string
	b.WaitValue("the file's link in the conversation", `(() => {
		const a = Array.from(document.querySelectorAll("main ol a[download]")).find(a => a.textContent.includes("nccl-debug.log"));
		return a ? a.getAttribute("href") : "";
	})()`, &href)
	if got := b.fetchText(href); got != "NCCL WARN timeout\n" {
		b.Fail("the file's link gives %q", got)
	}
	b.Shot("file in the conversation")

	var list struct {
		Attachments []struct{ Filename string } `json:"attachments"`
	}
	s.api(t, key, http.MethodGet, "/tickets/"+ticket.ID+"/attachments", nil).ok(t, http.StatusOK, &list)
	if len(list.Attachments) != 1 || list.Attachments[0].Filename != "nccl-debug.log" {
		t.Fatalf("the API lists %+v", list.Attachments)
	}
}
