package e2e

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// location is the tab's path and query.
func (b *tab) location() string {
	b.T.Helper()
	var loc string
	if err := b.EvalJS("location.pathname + location.search", &loc); err != nil {
		b.Fail("read the location: %v", err)
	}
	return loc
}

// fetchText fetches path from the page, with its cookies, and returns the
// body: what a download link would save.
func (b *tab) fetchText(path string) string {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, stepTimeout)
	defer cancel()
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		fmt.Sprintf(`fetch(%s).then(r => r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status)))`, browser.JS(path)),
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fail("fetch %s: %v", path, err)
	}
	return body
}

// Generating a key pair redirects to the SSH keys page, which shows the
// private key once: the address is /ssh-keys, and a reload shows the list
// without the key (and generates nothing).
func TestGenerateKeyPairThenReload(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("^SSH keys$")
	b.Fill("main", "^Name$", "e2e pair")
	b.Press("main", "^Generate a key pair$")
	b.WaitText("main", "Save the private key now")
	b.Settled()
	b.Shot("key pair generated")
	if loc := b.location(); loc != "/ssh-keys" {
		b.Fail("after generating, the address is %q, want /ssh-keys", loc)
	}
	b.Do("reload", chromedp.Reload())
	b.Ready()
	if loc := b.location(); loc != "/ssh-keys" {
		b.Fail("after the reload, the address is %q", loc)
	}
	b.WaitText("main", "e2e pair")
	var shown bool
	if err := b.EvalJS(`!!document.getElementById("private-key") || /Save the private key now|PRIVATE KEY/.test(document.querySelector("main").innerText)`, &shown); err != nil || shown {
		b.Fail("the reload shows the private key again (%v)", err)
	}
	if n := len(b.FindAll("main", "tbody tr", "e2e pair")); n != 1 {
		b.Fail("%d keys named e2e pair after the reload, want 1", n)
	}
	b.Shot("ssh keys after reload")
}

// With the browser in another time zone, times read in it (the UTC time
// stays in the title), on a page loaded whole and after htmx swaps one in.
func TestTimesInTheViewersZone(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	const zone = "Asia/Kolkata" // UTC+5:30 all year: never the same as UTC
	ctx, cancel := context.WithTimeout(b.Ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone}); err != nil {
		b.Fail("set the time zone: %v", err)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	b.signIn(o)
	check := func(where string) {
		b.T.Helper()
		var times []struct{ Datetime, Text, Title string }
		b.WaitValue("converted times on "+where, `(() => {
  const ts = Array.from(document.querySelectorAll("main time[datetime]"));
  if (!ts.length || ts.some(t => !t.dataset.localised)) return null;
  return ts.map(t => ({Datetime: t.getAttribute("datetime"), Text: t.textContent, Title: t.title}));
})()`, &times)
		for _, tm := range times {
			at, err := time.Parse(time.RFC3339, tm.Datetime)
			if err != nil {
				b.Fail("datetime %q: %v", tm.Datetime, err)
			}
			local := at.In(loc).Format("2 Jan 2006, 15:04:05")
			utc := at.UTC().Format("2 Jan 2006, 15:04:05 UTC")
			if !strings.HasPrefix(tm.Text, local) || strings.HasSuffix(tm.Text, "UTC") || tm.Title != utc {
				b.Fail("on %s, %s reads %q (title %q); want %s in %s, with %q as its title", where, tm.Datetime, tm.Text, tm.Title, local, zone, utc)
			}
		}
	}
	b.Open("/")
	check("the overview, loaded whole")
	b.NavTo("^Members$") // a boosted link: htmx swaps the page in
	check("the members, swapped in")
	b.Shot("times in Asia/Kolkata")

	// The audit log's filters take UTC, so its table stays in UTC and
	// says so, whatever the browser's zone.
	b.NavTo("^Audit log$")
	var audit struct {
		Header string
		Texts  []string
	}
	b.WaitValue("the audit log's times", `(() => {
  const ts = Array.from(document.querySelectorAll("main tbody time[datetime]"));
  if (!ts.length) return null;
  return {Header: document.querySelector("main thead").innerText,
    Texts: ts.map(t => t.textContent + "|" + t.getAttribute("datetime"))};
})()`, &audit)
	if !strings.Contains(audit.Header, "UTC") {
		b.Fail("the audit table's header %q does not say its zone", audit.Header)
	}
	for _, tm := range audit.Texts {
		text, datetime, _ := strings.Cut(tm, "|")
		at, err := time.Parse(time.RFC3339, datetime)
		if err != nil || text != at.UTC().Format("2 Jan 2006, 15:04:05 UTC") {
			b.Fail("on the audit log, %s reads %q; want it in UTC like the filters", datetime, text)
		}
	}
	b.Shot("audit log in UTC with the browser in Asia/Kolkata")
}

// The audit log shows the newest event first, the oldest first on
// request, filters on words in the details, and exports what it shows.
func TestAuditLogOrderFiltersAndExport(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	b := s.newTab(t)
	b.signIn(o)
	for _, name := range []string{"e2e-first", "e2e-middle", "e2e-last"} {
		s.api(t, key, http.MethodPost, "/ssh-keys", map[string]any{"name": name}).ok(t, http.StatusOK, nil)
	}
	b.NavTo("^Audit log$")
	first := func() string { return b.Text("main tbody tr:first-child .audit-summary") }
	if got := first(); !strings.Contains(got, "e2e-last") {
		b.Fail("the first event reads %q, want the newest (e2e-last)", got)
	}
	b.Shot("audit newest first")
	b.Press("main", "^Show oldest first$")
	b.WaitText("main", "Show newest first")
	b.Settled()
	if got := first(); !strings.Contains(got, "User created") {
		b.Fail("oldest first, the first event reads %q, want the user's creation", got)
	}

	b.Fill("main", "^Text in details", "E2E-MIDDLE")
	b.Press("main", "^Filter$")
	b.WaitJS("the filter to apply", `location.search.includes("text=E2E-MIDDLE")`)
	b.Settled()
	if n := len(b.FindAll("main", "tbody tr", ".")); n != 1 || !strings.Contains(first(), "e2e-middle") {
		b.Fail("the text filter shows %d events, first %q; want e2e-middle alone", n, first())
	}
	if !strings.Contains(b.location(), "order=oldest") {
		b.Fail("filtering dropped the order: %s", b.location())
	}
	b.Shot("audit filtered")

	var href string
	b.WaitValue("the CSV link", `(find("main", "a[href]", "^CSV$") && document.querySelector(find("main", "a[href]", "^CSV$")).getAttribute("href")) || ""`, &href)
	rows, err := csv.NewReader(strings.NewReader(b.fetchText(href))).ReadAll()
	if err != nil || len(rows) != 2 || !strings.Contains(strings.Join(rows[1], ","), "e2e-middle") {
		b.Fail("the CSV export of the filtered view: %v, %v", rows, err)
	}
	jsonl := strings.TrimSpace(b.fetchText(strings.Replace(href, "format=csv", "format=jsonl", 1)))
	if strings.Count(jsonl, "\n") != 0 || !strings.Contains(jsonl, `"name":"e2e-middle"`) {
		b.Fail("the JSON lines export of the filtered view: %s", jsonl)
	}
}
