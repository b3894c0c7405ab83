package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
)

// apiGet calls the JSON API with an API key and returns the status and
// the body.
func (e *env) apiGet(key, path string) (int, string) {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, body := testserver.Test(e.t, e.app, req)
	return res.StatusCode, string(body)
}

// Support attach files from the composer: with a reply the customer
// gets the file in the conversation, after the reply; with an internal
// note the file shows, marked internal, after the note for staff only,
// and does not exist for the owner: not on the page, not in the API's
// list, not at its download address or the API's download URL.
func TestComposerAttachesFiles(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	_, key := e.apiKey(ada, "checks")
	tk := e.ticket(ada, "GPU missing")
	page := "/tickets/" + tk.ID
	s := e.signedIn("help@example.com")
	s.get(page).expect(http.StatusOK).contains(`action="`+page+`/reply" enctype="multipart/form-data"`, `name="attachment"`)

	e.clock.Advance(time.Minute)
	s.postWithFile(page+"/reply", map[string]string{"kind": "reply", "body": "Try this script.", "status": ""},
		"fix.sh", []byte("nvidia-smi -r")).redirectsTo(page)
	s.get(page).contains("Reply sent, with “fix.sh”.")
	e.clock.Advance(time.Minute)
	s.postWithFile(page+"/reply", map[string]string{"kind": "note", "body": "Host 7 has ECC errors.", "status": ""},
		"host-7-dump.txt", []byte("ECC uncorrectable")).redirectsTo(page)
	staffPage := s.get(page).contains("Internal note added, with “host-7-dump.txt”. Only support staff see it.")
	thread := threadOf(t, staffPage.Body)
	if !inOrder(thread, "Try this script.", "fix.sh", "Host 7 has ECC errors.", "thread-file-internal", "host-7-dump.txt") {
		t.Fatalf("support's conversation does not show each file after its message, the note's marked internal:\n%s", thread)
	}
	all, err := e.store.TicketAttachments(t.Context(), models.OperatorActor, tk.ID)
	if err != nil || len(all) != 2 {
		t.Fatalf("%d attachments, want 2: %v", len(all), err)
	}
	var internal, public models.TicketAttachment
	for _, a := range all {
		if a.Internal {
			internal = a
		} else {
			public = a
		}
	}
	if internal.Filename != "host-7-dump.txt" || public.Filename != "fix.sh" {
		t.Fatalf("attachments %+v", all)
	}
	s.get(page + "/attachments/" + internal.ID + "/download").expect(http.StatusSeeOther)

	// The owner, in the dashboard.
	b := e.signedIn("ada@example.com")
	ownerPage := b.get(page).expect(http.StatusOK).contains("Try this script.", "fix.sh").lacks("host-7-dump", internal.ID, "Host 7")
	if !inOrder(threadOf(t, ownerPage.Body), "Try this script.", "fix.sh") {
		t.Fatalf("the owner's conversation lacks the reply's file after it")
	}
	b.get(page + "/attachments/" + public.ID + "/download").expect(http.StatusSeeOther)
	b.get(page + "/attachments/" + internal.ID + "/download").expect(http.StatusNotFound)
	b.get(page + "/attachments/" + internal.ID + "/delete").expect(http.StatusNotFound)

	// The owner, with their API key.
	status, body := e.apiGet(key, "/api/v1/tickets/"+tk.ID+"/attachments?status=uploaded&status=pending&status=failed&status=deleted")
	if status != http.StatusOK || !strings.Contains(body, public.ID) || strings.Contains(body, internal.ID) || strings.Contains(body, "host-7") {
		t.Fatalf("the API's list for the owner: %d %s", status, body)
	}
	if status, body := e.apiGet(key, "/api/v1/tickets/"+tk.ID+"/attachments/"+internal.ID+"/download"); status != http.StatusNotFound {
		t.Fatalf("the API's download URL of the internal file for the owner: %d %s", status, body)
	}
	if status, _ := e.apiGet(key, "/api/v1/tickets/"+tk.ID+"/attachments/"+public.ID+"/download"); status != http.StatusOK {
		t.Fatalf("the API's download URL of the reply's file for the owner: %d", status)
	}
	if status, body := e.apiGet(key, "/api/v1/tickets/"+tk.ID+"/attachments/"+internal.ID); status != http.StatusNotFound {
		t.Fatalf("the API's internal attachment for the owner: %d %s", status, body)
	}
}
