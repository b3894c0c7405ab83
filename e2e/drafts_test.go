package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloudplane/e2e/browser"
	"cloudplane/models/modelstest"
)

// A reply typed while the session ends elsewhere is not lost: sending it
// leads to sign-in, signing in leads back to the ticket with the reply
// refilled and "Draft restored" said, and sending it then works. Once
// sent, the draft is gone. The storage holds no CSRF token.
func TestDraftSurvivesAnEndedSession(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Disk slow", "description": "Since noon.", "type": "service_request"}).ok(t, http.StatusOK, &ticket)
	page := "/tickets/" + ticket.ID
	reply := "Still slow at 14:05; iostat shows 100% on nvme1."

	b := s.newTab(t)
	b.signIn(o)
	b.Open(page)
	b.Fill("main", "^Comment", reply)

	// The session ends: signed out from another browser.
	other := s.newTab(t)
	other.signIn(o)
	other.Open("/account")
	other.Press("#sessions", "^Sign out all other sessions$")
	other.WaitText("#flash", "other session was signed out")

	b.Press("main", "^Comment$")
	b.WaitText("main", "Your session has ended")
	b.Shot("session ended, sign in again")
	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Sign in$")
	b.WaitJS("the ticket page again", "location.pathname === "+browser.JS(page))
	b.Ready()
	b.WaitText("main", "Draft restored")
	var got string
	b.WaitValue("the reply refilled", `(document.querySelector("form[data-draft] textarea[name=comment]") || {}).value || ""`, &got)
	if got != reply {
		t.Fatalf("the reply box holds %q, want %q", got, reply)
	}
	var stored string
	if err := b.EvalJS(`JSON.stringify(Object.assign({}, sessionStorage))`, &stored); err != nil {
		t.Fatal(err)
	}
	var csrf string
	if err := b.EvalJS(`document.querySelector('meta[name="csrf-token"]').content`, &csrf); err != nil || csrf == "" {
		t.Fatalf("no CSRF token on the page: %v", err)
	}
	if strings.Contains(stored, csrf) || strings.Contains(stored, o.password) {
		t.Fatalf("the draft storage holds a token or password: %s", stored)
	}
	b.Shot("draft restored after sign-in")

	b.Press("main", "^Comment$")
	b.WaitText("#flash", "Comment added")
	b.WaitText("main", "iostat shows 100%")
	b.Open(page)
	b.Settled()
	if b.shows("main", "Draft restored") {
		t.Fatal("the draft came back after it was sent")
	}
	if err := b.EvalJS(`document.querySelector("form[data-draft] textarea[name=comment]").value`, &got); err != nil || got != "" {
		t.Fatalf("the reply box holds %q after sending (%v)", got, err)
	}
}

// With another process holding SQLite's write lock, creating a filesystem
// says "Still working…" after 2 s, then gives the form back with its
// values and "Nothing was saved; try again." rather than a 409 dead end;
// sent again once the lock is free, it works.
func TestBusyDatabaseKeepsTheForm(t *testing.T) {
	s := need(t)
	if modelstest.Backend() != "sqlite" {
		t.Skip("SQLite's write lock; PostgreSQL's lock wait is tested in handlers/web and handlers/api")
	}
	_, b := s.onPage(t, "^Filesystems$")
	b.Fill("main", "^Name", "e2e-busy")
	b.Choose("main", "^Region", "^us-east-1$")
	release := modelstest.HoldWriteLockFromProcess(t, s.db)
	b.Press("main", "^Create")
	b.WaitText("main", "Still working")
	// Save, not Shot: Shot waits for the request to finish first.
	t.Logf("screenshot %s", b.Save("busy database still working"))
	b.WaitText("main", "Nothing was saved; try again.")
	b.Shot("busy database form kept")
	if b.shows("main", "Conflict|concurrent request") {
		t.Fatal("a lock wait is shown as a conflict")
	}
	if b.shows("main", "Still working") {
		t.Fatal("\"Still working\" outlived the answer")
	}
	var name string
	b.WaitValue("the name kept", `(document.querySelector("main input[name=name]") || {}).value || ""`, &name)
	if name != "e2e-busy" {
		t.Fatalf("the name field holds %q, want e2e-busy", name)
	}
	release()
	b.Press("main", "^Create")
	b.WaitText("#flash", "e2e-busy")
}

// shows reports whether the text of scope matches pattern now.
func (b *tab) shows(scope, pattern string) bool {
	b.T.Helper()
	var ok bool
	if err := b.EvalJS(fmt.Sprintf("textMatches(%s, %s)", browser.JS(scope), browser.JS(pattern)), &ok); err != nil {
		b.Fail("read the text of %s: %v", scope, err)
	}
	return ok
}
