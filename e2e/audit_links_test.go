package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// An audit event names the object it is about and links to it: the
// ticket's event leads to the ticket; the CSV export names the owner by
// email, not "You".
func TestAuditEventLinksToItsObject(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Disk full on e2e", "description": "The root disk is full.", "type": "service_request"}).ok(t, http.StatusOK, &ticket)

	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("^Audit log$")
	b.WaitText("main tbody", "Support ticket “Disk full on e2e” opened")
	b.Shot("audit event names its object")
	b.Do("open the ticket from its event", chromedp.Click(b.Find("main tbody", "a[href]", "Disk full on e2e")))
	b.WaitJS("the ticket's page", `location.pathname === `+browser.JS("/tickets/"+ticket.ID))
	b.WaitText("main", "Disk full on e2e")

	b.NavTo("^Audit log$")
	var href string
	b.WaitValue("the CSV link", `(find("main", "a[href]", "^CSV$") && document.querySelector(find("main", "a[href]", "^CSV$")).getAttribute("href")) || ""`, &href)
	export := b.fetchText(href)
	if strings.Contains(export, ",You,") || !strings.Contains(export, ","+o.email+",") {
		b.Fail("the CSV export names the owner as You, or not by %s:\n%s", o.email, export)
	}
}
