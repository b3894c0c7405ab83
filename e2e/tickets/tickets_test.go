package tickets

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// delivery is one POST the receiver got.
type delivery struct {
	Type          string
	Authorization string
	ContentType   string
	Ticket        struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
}

// receiver is the owner's webhook endpoint. It answers 200, but holds a
// ticket.resolved delivery until released, so the test can watch the
// delivery pending in the log before it succeeds.
type receiver struct {
	url     string
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     []delivery
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() { r.letGo(); srv.Close() })
	r.url = srv.URL
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var ev struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(body, &ev)
	d := delivery{Type: ev.Type, Authorization: req.Header.Get("Authorization"), ContentType: req.Header.Get("Content-Type")}
	_ = json.Unmarshal(ev.Data, &d.Ticket)
	if d.Type == "ticket.resolved" {
		select {
		case <-r.release:
		case <-time.After(browser.StepTimeout):
		}
	}
	r.mu.Lock()
	r.got = append(r.got, d)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"received":true}`))
}

// letGo lets held deliveries through.
func (r *receiver) letGo() { r.once.Do(func() { close(r.release) }) }

// received returns the deliveries of one event type so far.
func (r *receiver) received(typ string) []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []delivery
	for _, d := range r.got {
		if d.Type == typ {
			out = append(out, d)
		}
	}
	return out
}

// openTicket opens an incident through the API with the owner's key and
// returns its id.
func openTicket(t *testing.T, base, key string) string {
	t.Helper()
	body := `{"subject":"GPU instance unreachable","description":"ssh times out since the restart.","type":"incident","severity":"sev_2"}`
	ctx, cancel := context.WithTimeout(context.Background(), browser.StepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/tickets", bytes.NewBufferString(body))
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
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK || out.Data.ID == "" {
		t.Fatalf("open a ticket: %d, %v", res.StatusCode, err)
	}
	return out.Data.ID
}

// Support staff solve a customer's ticket in the dashboard and watch the
// ticket.resolved webhook go from pending to succeeded in the delivery log,
// which updates by itself; the customer's server gets the event with the
// bearer token.
func TestSupportSolvesTicketAndWatchesTheDelivery(t *testing.T) {
	p := startPlane(t)
	p.cli("users", "create", "--email", "help@example.com", "--password", "support password", "--role", "support")
	p.cli("users", "create", "--email", "ada@example.com", "--password", "correct horse battery")
	key := p.cli("apikeys", "create", "--email", "ada@example.com", "--name", "e2e")
	hook := newReceiver(t)
	token := p.cli("webhooks", "set", "--email", "ada@example.com", "--url", hook.url+"/hook", "--webhook-allow-private")
	id := openTicket(t, p.url, key)

	b := p.newTab(t)
	b.Open("/sign-in")
	b.Do("sign in as support staff",
		chromedp.SendKeys(chromedp.CSS("#field-email"), "help@example.com"),
		chromedp.SendKeys(chromedp.CSS("#field-password"), "support password"),
		chromedp.Submit(chromedp.CSS("#field-password")),
		chromedp.WaitVisible(chromedp.CSS(`.main-nav a[href="/tickets"]`)))
	b.WaitJS("the home page lists the new ticket", `document.querySelector('a[href="/tickets/`+id+`"]') !== null`)
	b.Shot("support-home")

	b.Open("/tickets/" + id)
	b.Shot("ticket")
	b.Do("move the ticket to solved",
		chromedp.Click(chromedp.CSS(`.move-form button[name="status"][value="solved"]`)),
		chromedp.WaitVisible(chromedp.CSS(".ticket-meta .badge-success")))
	b.WaitJS("the page says the ticket moved", `document.querySelector('#flash').innerText.includes('Ticket moved to Solved.')`)
	b.Shot("ticket-solved")

	// The receiver holds the delivery: the log shows it pending and polls.
	b.Open("/webhook-deliveries?event_type=ticket.resolved")
	b.WaitJS("the delivery is listed as pending, and the list polls",
		`document.querySelector('#deliveries[data-polling] td[data-label="Status"] .badge-info') !== null`)
	b.Shot("delivery-log-pending")
	hook.letGo()
	b.WaitJS("the delivery turns succeeded without a reload, and the list stops polling",
		`document.querySelector('#deliveries td[data-label="Status"] .badge-success') !== null && `+
			`document.querySelector('#deliveries[data-polling]') === null`)
	b.Shot("delivery-log-succeeded")

	b.Do("open the delivery",
		chromedp.Click(chromedp.CSS(`#deliveries a[href^="/webhook-deliveries/"]`)),
		chromedp.WaitVisible(chromedp.CSS(".attempt")))
	b.Shot("delivery")
	page := b.Text("#main")
	for _, want := range []string{"Attempt 1", "Succeeded", "200", "Bearer cpwh_", `"type": "ticket.resolved"`, id} {
		if !strings.Contains(page, want) {
			t.Errorf("the delivery page lacks %q", want)
		}
	}
	if strings.Contains(page, token) {
		t.Error("the delivery page shows the bearer token")
	}

	got := hook.received("ticket.resolved")
	if len(got) != 1 {
		t.Fatalf("receiver got %d ticket.resolved deliveries, want 1", len(got))
	}
	if d := got[0]; d.Authorization != "Bearer "+token || d.ContentType != "application/json" ||
		d.Ticket.ID != id || d.Ticket.Status != "solved" {
		t.Fatalf("ticket.resolved delivery %+v", d)
	}
}
