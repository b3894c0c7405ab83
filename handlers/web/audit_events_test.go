package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

var (
	eventInPage = regexp.MustCompile(`<tr id="event-([0-9a-f]{32})">`)
	loadMore    = regexp.MustCompile(`<div id="audit-more" class="load-more"[^>]*><a class="button button-secondary" href="([^"]+)"`)
)

// eventIDs are the events a page shows, in order.
func (p *page) eventIDs() []string {
	var ids []string
	for _, m := range eventInPage.FindAllStringSubmatch(p.Body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// next is the load-more link's target, or "" when there is none.
func (p *page) next() string {
	m := loadMore.FindStringSubmatch(p.Body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// Each event says what happened and who did it, and opens to show all
// it records, from the same query as GET /api/v1/audit-events.
func TestAuditLog(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	bob := e.owner("bob@example.com")
	_, secret := e.apiKey(ada, "ci")
	e.sshKey(bob, "bobs-key")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	if status := e.apiPost(secret, "/api/v1/ssh-keys", `{"name": "from-ci", "public_key": "`+edKey+`"}`); status != http.StatusOK {
		t.Fatalf("API: %d", status)
	}
	ev := e.events(ada, 1)[0]
	res := b.get("/audit-events").expect(http.StatusOK).
		contains("<h1>Audit log</h1>", `href="/audit-events" aria-current="page"`, "Events",
			"User created: “ada@example.com”", "The operator",
			`SSH key <a href="/ssh-keys">“from-ci”</a> added`, "You, with an API key",
			`<th scope="col">Time (UTC)</th>`, `<time datetime="2026-01-02T03:04:06Z" data-utc>2 Jan 2026, 03:04:06 UTC</time>`,
			"<code>cloud.ssh_key created</code>", "<code>"+ev.ID+"</code>", "<code>lrn:cloud:user:"+ada.ID+"</code>",
			"<code>"+*ev.RequestAPIKeyLRN+"</code>", "<code>lrn:cloud:ssh_key:", "<code>lrn:cloud:account:"+*ada.AccountID+"</code>",
			"<pre>{\n  &#34;generated&#34;: false,\n  &#34;name&#34;: &#34;from-ci&#34;\n}</pre>",
			"None: not made through the API", `<option value="cloud.instance">Instances</option>`).
		lacks("bobs-key", "bob@example.com", `id="audit-more" class="load-more"><a`)
	if ids := res.eventIDs(); len(ids) != 3 || ids[0] != ev.ID { // the sign-in is personal: not here
		t.Fatalf("events %v, want 3 starting with the newest, %s", ids, ev.ID)
	}
}

// apiPost calls the JSON API with an API key and returns the status.
func (e *env) apiPost(key, path, body string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.app.Test(req, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode
}

// The filters are the API's, kept in the URL. Times are UTC; an end
// given to the minute includes that whole minute.
func TestAuditLogFilters(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com") // 03:04:05
	e.clock.Set(time.Date(2026, 1, 2, 3, 10, 30, 0, time.UTC))
	e.sshKey(ada, "in-range-1")
	e.clock.Set(time.Date(2026, 1, 2, 3, 11, 59, 0, time.UTC))
	e.sshKey(ada, "in-range-2")
	e.clock.Set(time.Date(2026, 1, 2, 3, 12, 0, 0, time.UTC))
	e.sshKey(ada, "too-late")
	e.apiKey(ada, "not-a-key-event")

	b.get("/audit-events?start=2026-01-02T03:10&end=2026-01-02T03:11&resource_type=").expect(http.StatusOK).
		contains("in-range-1", "in-range-2", `value="2026-01-02T03:10"`, `value="2026-01-02T03:11"`, `href="/audit-events">Clear filters`).
		lacks("too-late", "Signed in to the dashboard", "not-a-key-event")
	b.get("/audit-events?resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains("in-range-1", "too-late", `<option value="cloud.ssh_key" selected>SSH keys</option>`).
		lacks("Signed in to the dashboard", "not-a-key-event")
	// RFC 3339, as the API spells it, works too.
	b.get("/audit-events?start=2026-01-02T03:12:00Z").expect(http.StatusOK).contains("too-late", "not-a-key-event").lacks("in-range")
	b.get("/audit-events?resource_type=cloud.ticket").expect(http.StatusOK).
		contains("No events match these filters", `<option value="cloud.ticket" selected>Support tickets</option>`)
}

// A filter the domain refuses is shown beside its field; a page token
// that is not the query's says so, with the way back.
func TestAuditLogRefusedFilters(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/audit-events?start=2026-01-03T00:00&end=2026-01-02T00:00").expect(http.StatusUnprocessableEntity).
		fieldError("start", "From (UTC) must not be after end.").lacks("Signed in to the dashboard")
	b.get("/audit-events?end=yesterday").expect(http.StatusUnprocessableEntity).
		fieldError("end", "Until (UTC) must be an RFC 3339 time, e.g. 2026-01-02T03:04:05Z.")
	b.get("/audit-events?resource_type=Cloud.Filesystem").expect(http.StatusUnprocessableEntity).
		fieldError("resource_type", "Resource must read &lt;service_name&gt;.&lt;resource_name&gt; in lower case, e.g. cloud.filesystem.").
		contains(`<option value="Cloud.Filesystem" selected>`)
	b.get("/audit-events?resource_type=cloud.session&page_token=forged").expect(http.StatusUnprocessableEntity).
		contains("This page of the log cannot be shown", "The page token is not one this query issued",
			`<a href="/audit-events?resource_type=cloud.session">Go to the first page</a>`).lacks("Signed in to the dashboard")
	b.htmx = true
	b.get("/audit-events?start=bad").expect(http.StatusUnprocessableEntity).
		fieldError("start", "From (UTC) must be an RFC 3339 time, e.g. 2026-01-02T03:04:05Z.").lacks("<!doctype html>")
}

// "Load more" appends the next page under the table and replaces itself
// with the next page's button, none on the last page; without script it
// is a link to the next page. Filters travel with it; no event is shown
// twice or left out.
func TestAuditLogLoadMore(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	const keys = 2*models.AuditPageSize + 30
	pub := edKey
	for i := range keys {
		if i%40 == 0 {
			e.clock.Advance(time.Second) // many events share a time: the order must still hold
		}
		if _, _, err := e.store.CreateSSHKey(context.Background(), ada.Actor(), models.CreateSSHKeyInput{Name: fmt.Sprintf("k%03d", i), PublicKey: &pub}); err != nil {
			t.Fatal(err)
		}
	}
	e.apiKey(ada, "filtered-out")
	first := b.get("/audit-events?resource_type=cloud.ssh_key").expect(http.StatusOK).lacks("filtered-out", "Back to the first page")
	seen := map[string]bool{}
	var order []string
	collect := func(p *page, want int) {
		t.Helper()
		ids := p.eventIDs()
		if len(ids) != want {
			t.Fatalf("%d events, want %d", len(ids), want)
		}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("event %s shown twice", id)
			}
			seen[id] = true
			order = append(order, id)
		}
	}
	collect(first, models.AuditPageSize)
	next := first.next()
	u, err := url.Parse(next)
	if err != nil || u.Path != "/audit-events" || u.Query().Get("resource_type") != "cloud.ssh_key" || u.Query().Get("page_token") == "" {
		t.Fatalf("load more links to %q", next)
	}

	// Without script: the next page, whole, with the way back.
	b.get(next).expect(http.StatusOK).contains("<!doctype html>", `href="/audit-events?resource_type=cloud.ssh_key">Back to the first page`)

	// With script: rows and the button's replacement, nothing else.
	b.htmx = true
	b.header.Set("HX-Target", "audit-rows")
	second := b.get(next).expect(http.StatusOK).
		contains(`<div id="audit-more" class="load-more" hx-swap-oob="true">`, `hx-target="#audit-rows"`, `hx-swap="beforeend"`).
		lacks("<title>", "site-header", "<table", "<h1>", "filtered-out")
	if !strings.HasPrefix(second.Body, "<tr id=\"event-") {
		t.Fatalf("load more answer does not start with rows:\n%.300s", second.Body)
	}
	collect(second, models.AuditPageSize)
	third := b.get(second.next()).expect(http.StatusOK).contains(`<div id="audit-more" class="load-more" hx-swap-oob="true"></div>`)
	collect(third, keys-2*models.AuditPageSize)
	if third.next() != "" {
		t.Fatal("the last page offers more")
	}

	// Every ssh_key event once, newest first.
	page, err := e.store.AuditEvents(context.Background(), ada.Actor(), models.AuditEventsInput{ResourceType: "cloud.ssh_key", NewestFirst: true})
	if err != nil || len(order) != keys || page.Events[0].ID != order[0] || page.Events[99].ID != order[99] {
		t.Fatalf("saw %d events; err %v", len(order), err)
	}
	// A token from these filters does not serve others.
	b.header.Del("HX-Target")
	b.htmx = false
	// The dashboard's own filters travel with the next page too.
	filtered := b.get("/audit-events?resource_type=cloud.ssh_key&actor=owner&text=k&order=oldest").expect(http.StatusOK)
	u, err = url.Parse(filtered.next())
	if q := u.Query(); err != nil || q.Get("actor") != "owner" || q.Get("text") != "k" || q.Get("order") != "oldest" ||
		q.Get("resource_type") != "cloud.ssh_key" {
		t.Fatalf("load more with every filter links to %q", filtered.next())
	}
	if ids := b.get(filtered.next()).expect(http.StatusOK).eventIDs(); len(ids) != models.AuditPageSize || ids[0] != order[len(order)-1-models.AuditPageSize] {
		t.Fatalf("the next oldest-first page starts with %v", ids[:1])
	}
	tampered := strings.Replace(next, "cloud.ssh_key", "cloud.api_key", 1)
	b.get(tampered).expect(http.StatusUnprocessableEntity).contains("The page token is not one this query issued")
}
