package tickets

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// apiTicket sends one request of the owner to the tickets API and returns
// the ticket's id when the answer has one.
func apiTicket(t *testing.T, base, key, method, path, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browser.StepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+"/api/v1/tickets"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d, %v", method, path, res.StatusCode, err)
	}
	return out.Data.ID
}

func incident(t *testing.T, base, key, subject, severity string) string {
	return apiTicket(t, base, key, http.MethodPost, "",
		`{"subject":"`+subject+`","description":"details","type":"incident","severity":"`+severity+`"}`)
}

// Support's one composer: switching to an internal note changes how the
// form looks and says who reads it; "Send and solve" sends the reply and
// solves the ticket at once.
func TestSupportComposerSwitchAndSendAndSolve(t *testing.T) {
	p := startPlane(t)
	p.cli("users", "create", "--email", "help@example.com", "--password", "support password", "--role", "support")
	p.cli("users", "create", "--email", "ada@example.com", "--password", "correct horse battery")
	key := p.cli("apikeys", "create", "--email", "ada@example.com", "--name", "e2e")
	id := openTicket(t, p.url, key)

	b := p.newTab(t)
	b.signIn("help@example.com", "support password")
	b.Open("/tickets/" + id)
	b.WaitJS("one composer with a reply / internal note switch", `document.querySelector('#composer-reply') !== null && `+
		`document.querySelector('#composer-reply').checked && document.querySelectorAll('textarea').length === 1`)
	var look struct {
		Background string `json:"background"`
		Banner     bool   `json:"banner"`
	}
	const lookJS = `({background: getComputedStyle(document.querySelector('#composer')).backgroundColor, ` +
		`banner: document.querySelector('#composer-note-banner').offsetParent !== null})`
	if err := b.EvalJS(lookJS, &look); err != nil {
		t.Fatal(err)
	}
	reply := look
	if reply.Banner {
		t.Fatal("a reply shows the internal note banner")
	}
	b.Do("switch to an internal note", chromedp.Click(chromedp.CSS("#composer-note")))
	if err := b.EvalJS(lookJS, &look); err != nil {
		t.Fatal(err)
	}
	if look.Background == reply.Background || !look.Banner {
		t.Fatalf("a note looks like a reply: %+v, reply %+v", look, reply)
	}
	b.Shot("composer-note")

	b.Do("switch back and send and solve",
		chromedp.Click(chromedp.CSS("#composer-reply")),
		chromedp.SendKeys(chromedp.CSS("#field-body"), "The host was replaced; it works again."),
		chromedp.Click(chromedp.CSS("#composer-send-solved")))
	b.WaitJS("the reply is sent and the ticket solved", `document.querySelector('#flash').innerText.includes('Reply sent. Ticket moved to Solved.') && `+
		`document.querySelector('.ticket-meta').innerText.includes('Solved') && `+
		`document.querySelector('.thread').innerText.includes('The host was replaced')`)
	b.Shot("composer-sent-and-solved")

	// The owner reads the agent as "Support agent" and may reopen.
	b.Do("sign out", chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#field-email")))
	b.signIn("ada@example.com", "correct horse battery")
	b.Open("/tickets/" + id)
	b.WaitJS("the owner sees the agent and a reopen", `document.querySelector('.thread').innerText.includes('Support agent') && `+
		`document.querySelector('#reopen') !== null`)
	b.Shot("owner-solved-ticket")
	b.Do("reopen", chromedp.Click(chromedp.CSS("#reopen")))
	b.WaitJS("the ticket is open again", `document.querySelector('#flash').innerText.includes('Ticket reopened.') && `+
		`document.querySelector('.ticket-meta').innerText.includes('Open')`)
}

// The queue shows unresolved tickets, the most severe first, with how
// long each waits; the "Solved/closed" saved view shows the others.
func TestSupportQueueDefaultAndSavedView(t *testing.T) {
	p := startPlane(t)
	p.cli("users", "create", "--email", "help@example.com", "--password", "support password", "--role", "support")
	p.cli("users", "create", "--email", "ada@example.com", "--password", "correct horse battery")
	key := p.cli("apikeys", "create", "--email", "ada@example.com", "--name", "e2e")
	minor := incident(t, p.url, key, "minor glitch", "sev_3")
	urgent := incident(t, p.url, key, "cluster unreachable", "sev_1")
	solved := incident(t, p.url, key, "already fixed", "sev_1")
	apiTicket(t, p.url, key, http.MethodPatch, "/"+solved, `{"status":"solved"}`)

	b := p.newTab(t)
	b.signIn("help@example.com", "support password")
	b.Open("/tickets")
	b.WaitJS("the queue lists the unresolved tickets", `document.querySelector('a[href="/tickets/`+urgent+`"]') !== null`)
	b.Shot("queue-default")
	var rows []string
	if err := b.EvalJS(`[...document.querySelectorAll('.queue-table tbody tr a[href^="/tickets/"]')].map(a => a.getAttribute('href'))`, &rows); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows, ",") != "/tickets/"+urgent+",/tickets/"+minor {
		t.Fatalf("queue rows %v, want the sev 1 then the sev 3, without the solved one", rows)
	}
	var head struct {
		Waiting bool   `json:"waiting"`
		Sorted  string `json:"sorted"`
	}
	if err := b.EvalJS(`({waiting: [...document.querySelectorAll('.queue-table th')].some(th => th.textContent.trim() === 'Waiting'), `+
		`sorted: document.querySelector('.queue-table th[aria-sort]').textContent})`, &head); err != nil {
		t.Fatal(err)
	}
	if !head.Waiting || !strings.Contains(head.Sorted, "Severity") {
		t.Fatalf("queue headers %+v, want a Waiting column and sorted by severity", head)
	}

	b.Do("open the Solved/closed view", chromedp.Click(chromedp.CSS(`.saved-views a[href*="status=resolved"]`)))
	b.WaitJS("the view lists the solved ticket only", `document.querySelector('a[href="/tickets/`+solved+`"]') !== null && `+
		`document.querySelector('a[href="/tickets/`+urgent+`"]') === null && `+
		`document.querySelector('.saved-views [aria-current="page"]').innerText.includes('Solved')`)
	b.Shot("queue-solved-view")
}

// Without script, the composer still sends a note with a move: a plain
// form post, and the note looks different by CSS alone.
func TestSupportComposerWithoutScript(t *testing.T) {
	p := startPlane(t)
	p.cli("users", "create", "--email", "help@example.com", "--password", "support password", "--role", "support")
	p.cli("users", "create", "--email", "ada@example.com", "--password", "correct horse battery")
	key := p.cli("apikeys", "create", "--email", "ada@example.com", "--name", "e2e")
	id := openTicket(t, p.url, key)

	b := p.newTab(t)
	b.signIn("help@example.com", "support password")
	ctx, cancel := context.WithTimeout(b.Ctx, browser.StepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("turn script off: %v", err)
	}
	b.Do("open the ticket without script", chromedp.Navigate(p.url+"/tickets/"+id),
		chromedp.WaitVisible(chromedp.CSS("#composer")))
	b.Do("write a note and set pending",
		chromedp.Click(chromedp.CSS("#composer-note")),
		chromedp.SendKeys(chromedp.CSS("#field-body"), "Waiting for the customer's logs."),
		chromedp.Click(chromedp.CSS("#composer-send-pending")),
		chromedp.WaitVisible(chromedp.CSS(".activity-note")))
	var htmx bool
	if err := b.EvalJS(`!!window.htmx`, &htmx); err != nil || htmx {
		t.Fatalf("script ran: htmx %v, %v", htmx, err)
	}
	b.Shot("composer-note-sent-without-script")
	if text := b.Text("#main"); !strings.Contains(text, "Internal note added.") || !strings.Contains(text, "Waiting for the customer's logs.") ||
		!strings.Contains(b.Text(".ticket-meta"), "Pending") {
		t.Fatalf("after sending without script: %s", text)
	}
}
