package tickets

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// signIn signs in through the form and waits for the main navigation.
func (b *tab) signIn(email, password string) {
	b.T.Helper()
	b.Open("/sign-in")
	b.Do("sign in as "+email,
		chromedp.SendKeys(chromedp.CSS("#field-email"), email),
		chromedp.SendKeys(chromedp.CSS("#field-password"), password),
		chromedp.Submit(chromedp.CSS("#field-password")),
		chromedp.WaitVisible(chromedp.CSS(`.main-nav a[href="/tickets"]`)))
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

	b := p.newTab(t)
	b.signIn("help@example.com", "support password")
	b.Open("/tickets?assignee=unassigned")
	b.WaitJS("the queue lists the unassigned ticket with its owner's email",
		`document.querySelector('a[href="/tickets/`+id+`"]') !== null && document.querySelector('#main').innerText.includes('ada@example.com')`)
	b.Shot("queue-unassigned")

	b.Open("/tickets/" + id)
	b.Do("assign the ticket to myself",
		chromedp.Click(chromedp.CSS(`#assign-to-me`)),
		chromedp.WaitVisible(chromedp.CSS(`#activity-0`)))
	b.WaitJS("the page says the ticket is mine", `document.querySelector('#flash').innerText.includes('Ticket assigned to you.') && `+
		`document.querySelector('#assignee-now').innerText.includes('help@example.com')`)
	b.Shot("ticket-assigned")

	b.Do("write an internal note",
		chromedp.Click(chromedp.CSS("#composer-note")),
		chromedp.SendKeys(chromedp.CSS("#field-body"), note),
		chromedp.Click(chromedp.CSS(`#composer-send`)),
		chromedp.WaitVisible(chromedp.CSS(`.activity-note`)))
	b.Shot("ticket-noted")
	if text := b.Text("#main"); !strings.Contains(text, note) || !strings.Contains(text, "assigned the ticket to help@example.com") {
		t.Fatalf("the support view lacks the note or the assignment: %s", text)
	}
	b.Open("/tickets?assignee=mine")
	b.WaitJS("the ticket is in my queue", `document.querySelector('a[href="/tickets/`+id+`"]') !== null`)

	b.Do("sign out", chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#field-email")))
	b.signIn("ada@example.com", "correct horse battery")
	b.Open("/tickets/" + id)
	b.Shot("owner-ticket")
	text := b.Text("#main")
	if !strings.Contains(text, "assigned the ticket to an agent") {
		t.Errorf("the owner does not see that support took the ticket: %s", text)
	}
	for _, hidden := range []string{note, "help@example.com", "Internal note", "Assign to me"} {
		if strings.Contains(text, hidden) {
			t.Errorf("the owner's page shows %q", hidden)
		}
	}
}
