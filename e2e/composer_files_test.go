package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Support staff attach a file from the composer, once with a reply and
// once with an internal note: each shows in the conversation after its
// message (the note's marked internal); the owner, in their browser and
// with their API key, gets the reply's file and never the note's.
func TestComposerWithFile(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Node 7 flaps", "description": "Since Monday.", "type": "service_request"}).ok(t, http.StatusOK, &ticket)
	dir := t.TempDir()
	reply, note := filepath.Join(dir, "fix-driver.sh"), filepath.Join(dir, "host-7-ecc.txt")
	if err := os.WriteFile(reply, []byte("modprobe -r nvidia\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("ECC uncorrectable on host 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	help := owner{email: fmt.Sprintf("composer-files-%d@example.com", owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", help.email, "--password", help.password, "--role", "support")

	sb := s.newTab(t)
	sb.signIn(help)
	sb.Open("/tickets/" + ticket.ID)
	sb.Fill("#composer", "^Message$", "Run this script, please.")
	sb.Do("choose the reply's file", chromedp.SetUploadFiles(sb.Find("#composer", "control", `^Attach a file \(optional\)`), []string{reply}))
	sb.Shot("composer reply with a file")
	sb.Press("#composer", "^Send$")
	sb.WaitText("#flash", "fix-driver.sh")

	sb.Do("switch to an internal note", chromedp.Click(chromedp.CSS("#composer-note")))
	sb.Fill("#composer", "^Message$", "ECC errors on the host, not the customer's fault.")
	sb.Do("choose the note's file", chromedp.SetUploadFiles(sb.Find("#composer", "control", `^Attach a file \(optional\)`), []string{note}))
	sb.Shot("composer note with a file")
	sb.Press("#composer", "^Send$")
	sb.WaitText("#flash", "host-7-ecc.txt")
	sb.Shot("files in support's conversation")
	thread := sb.Text("main ol.thread")
	if !inOrder(thread, "Run this script, please.", "fix-driver.sh", "ECC errors on the host", "Internal", "host-7-ecc.txt") {
		sb.Fail("support's conversation does not show each file after its message, the note's internal:\n%s", thread)
	}
	var noteHref string
	sb.WaitValue("the note file's link", `(() => {
		const a = Array.from(document.querySelectorAll("main ol a[download]")).find(a => a.textContent.includes("host-7-ecc.txt"));
		return a ? a.getAttribute("href") : "";
	})()`, &noteHref)
	if got := sb.fetchText(noteHref); got != "ECC uncorrectable on host 7\n" {
		sb.Fail("support's link to the note's file gives %q", got)
	}

	ob := s.newTab(t)
	ob.signIn(o)
	ob.Open("/tickets/" + ticket.ID)
	ob.Shot("owner's conversation with support's file")
	text := ob.Text("main")
	if !strings.Contains(text, "fix-driver.sh") || strings.Contains(text, "host-7-ecc") || strings.Contains(text, "ECC errors") {
		ob.Fail("the owner's page should show the reply's file only:\n%s", text)
	}
	if status := ob.Open(noteHref); status != http.StatusNotFound {
		ob.Fail("the owner opening the note file's address got %d, want 404", status)
	}
	var list struct {
		Attachments []struct{ ID, Filename string } `json:"attachments"`
	}
	s.api(t, key, http.MethodGet, "/tickets/"+ticket.ID+"/attachments", nil).ok(t, http.StatusOK, &list)
	if len(list.Attachments) != 1 || list.Attachments[0].Filename != "fix-driver.sh" {
		t.Fatalf("the API lists %+v for the owner, want only fix-driver.sh", list.Attachments)
	}
	internalID := strings.Split(strings.TrimPrefix(noteHref, "/tickets/"+ticket.ID+"/attachments/"), "/")[0]
	s.api(t, key, http.MethodGet, "/tickets/"+ticket.ID+"/attachments/"+internalID+"/download", nil).ok(t, http.StatusNotFound, nil)
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
