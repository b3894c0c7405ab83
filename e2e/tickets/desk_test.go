package tickets

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// signIn signs in through the form and waits for the main navigation.
func (b *browser) signIn(email, password string) {
	b.t.Helper()
	b.open("/sign-in")
	b.do("sign in as "+email,
		chromedp.SendKeys(chromedp.CSS("#field-email"), email),
		chromedp.SendKeys(chromedp.CSS("#field-password"), password),
		chromedp.Submit(chromedp.CSS("#field-password")),
		chromedp.WaitVisible(chromedp.CSS(`.main-nav a[href="/tickets"]`)))
}

// mainText is the text of the page's main content.
func (b *browser) mainText() string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#main")))
	if err != nil {
		b.t.Fatalf("read the page: %v", err)
	}
	return text
}

// A support agent takes a customer's ticket and writes an internal note;
// the customer then sees that support took it, but not the note, nor who.
func TestSupportAssignsTicketAndAddsInternalNote(t *testing.T) {
	p := startPlane(t)
	p.cli("users", "create", "--email", "help@example.com", "--password", "support password", "--role", "support")
	p.cli("users", "create", "--email", "ada@example.com", "--password", "correct horse battery")
	key := p.cli("apikeys", "create", "--email", "ada@example.com", "--name", "e2e")
	id := openTicket(t, p.url, key)
	const note = "Restarted host gpu-17 twice already; escalate if it happens again."

	b := newBrowser(t, p.url)
	b.signIn("help@example.com", "support password")
	b.open("/tickets?assignee=unassigned")
	b.waitFor("the queue lists the unassigned ticket with its owner's email",
		`document.querySelector('a[href="/tickets/`+id+`"]') !== null && document.querySelector('#main').innerText.includes('ada@example.com')`, stepTimeout)
	b.shot("queue-unassigned")

	b.open("/tickets/" + id)
	b.do("assign the ticket to myself",
		chromedp.Click(chromedp.CSS(`#assign-to-me`)),
		chromedp.WaitVisible(chromedp.CSS(`#activity-0`)))
	b.waitFor("the page says the ticket is mine", `document.querySelector('#flash').innerText.includes('Ticket assigned to you.') && `+
		`document.querySelector('#assignee-now').innerText.includes('help@example.com')`, stepTimeout)
	b.shot("ticket-assigned")

	b.do("write an internal note",
		chromedp.SendKeys(chromedp.CSS("#field-note"), note),
		chromedp.Click(chromedp.CSS(`.note-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.activity-note`)))
	b.shot("ticket-noted")
	if text := b.mainText(); !strings.Contains(text, note) || !strings.Contains(text, "assigned the ticket to help@example.com") {
		t.Fatalf("the support view lacks the note or the assignment: %s", text)
	}
	b.open("/tickets?assignee=mine")
	b.waitFor("the ticket is in my queue", `document.querySelector('a[href="/tickets/`+id+`"]') !== null`, stepTimeout)

	b.do("sign out", chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#field-email")))
	b.signIn("ada@example.com", "correct horse battery")
	b.open("/tickets/" + id)
	b.shot("owner-ticket")
	text := b.mainText()
	if !strings.Contains(text, "assigned the ticket to an agent") {
		t.Errorf("the owner does not see that support took the ticket: %s", text)
	}
	for _, hidden := range []string{note, "help@example.com", "Internal note", "Assign to me"} {
		if strings.Contains(text, hidden) {
			t.Errorf("the owner's page shows %q", hidden)
		}
	}
}
