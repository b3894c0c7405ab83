package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// The endpoint page as the issue found it, fixed: "Reveal secret" and
// "Rotate secret" stand apart; the latest error lives in the one card of
// the last 24 hours, with a chart drawn by the server; after a rotation
// the panel names the time itself. And what a receiver's developer
// needs: the event catalogue with each type's body, and an example of
// any type sent to the endpoint, which shows in its delivery log.
func TestWebhookToolsAndLayout(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.Open("/webhook")
	b.Fill("main", "^URL$", "https://hooks.example.com/tools")
	b.Press("main", "^Add endpoint$")
	b.WaitText("main", "Your endpoint is set up")
	b.Press(b.RowWith("hooks.example.com/tools"), "hooks.example.com/tools")
	b.WaitJS("the endpoint's page", `location.pathname.startsWith("/webhook/") && textMatches("main", "Reveal secret")`)
	page := b.location()

	var gap float64
	b.WaitValue("the gap between Reveal secret and Rotate secret", `(() => {
		const [a, r] = [...document.querySelectorAll("main a.button")].filter(x => /^(Reveal|Rotate) secret$/.test(x.textContent.trim()))
			.map(x => x.getBoundingClientRect());
		if (!a || !r) return null;
		return r.top >= a.bottom ? r.top - a.bottom : r.left - a.right;
	})()`, &gap)
	if gap < 8 {
		b.Fail("Reveal secret and Rotate secret are %.0f px apart", gap)
	}
	var inCard bool
	if err := b.EvalJS(`[...document.querySelectorAll("main dt, main .tile-label")].filter(x => x.textContent.trim() == "Last error")
		.every(x => x.closest("section.card") && x.closest("section.card").querySelector("#health-heading"))`, &inCard); err != nil || !inCard {
		b.Fail("the last error is not inside the last 24 hours' card (%v)", err)
	}

	b.Press("main .page-actions", "^Event catalogue$")
	b.WaitText("main h1", "^Event catalogue$")
	for _, typ := range []string{"ticket.created", "ticket.status_changed", "ticket.resolved", "webhook.test"} {
		body := b.Text("#event-" + strings.ReplaceAll(typ, ".", "-") + " pre")
		if !strings.Contains(body, `"type": "`+typ+`"`) || !strings.Contains(body, `"api_version"`) {
			b.Fail("the catalogue's %s body reads %q", typ, body)
		}
	}
	b.Shot("event catalogue")

	b.Open(page)
	b.Choose("main", "^Event type$", "ticket.status_changed")
	b.Press("main", "^Send example$")
	b.WaitText("main", "Example ticket.status_changed event queued")
	if row := b.Text(b.RowWith("Ticket status changed")); !strings.Contains(row, "hooks.example.com/tools") {
		b.Fail("the example's row in the delivery log reads %q", row)
	}
	b.Shot("example in the delivery log")

	b.Open(page)
	var bars struct {
		Hours int
		Width float64
		Desc  string
	}
	b.WaitValue("the delivery chart", `(() => {
		const svg = document.querySelector("main svg[role=img]");
		if (!svg) return null;
		return {Hours: svg.querySelectorAll("g.chart-hour").length, Width: svg.getBoundingClientRect().width,
			Desc: svg.querySelector("desc").textContent};
	})()`, &bars)
	if bars.Hours != 24 || bars.Width < 250 || !strings.Contains(bars.Desc, "24 hours") {
		b.Fail("chart %+v", bars)
	}
	b.Shot("endpoint page with chart")

	b.Fill("main", "^Header 1 name$", "Host")
	b.Fill("main", "^Header 1 value$", "evil.example")
	b.Press("main", "^Save headers$")
	b.WantFieldError("main", "^Header 1 name$", "Host is set by cloudplane")
	b.Fill("main", "^Header 1 name$", "X-Gateway-Key")
	b.Fill("main", "^Header 1 value$", "gw-1")
	b.Press("main", "^Save headers$")
	b.WaitText("main", "Custom headers saved")
	b.Shot("custom header saved")

	b.Press("main", "^Rotate secret$")
	b.WaitText("dialog[open]", "Rotate the signing secret")
	b.Press("dialog[open]", "^Rotate secret$")
	b.WaitText(".secret-panel", "Until .*deliveries are signed with both")
	if panel := b.Text(".secret-panel"); strings.Contains(panel, "below") || !regexp.MustCompile(`\d{4}|\d:\d\d`).MatchString(panel) {
		b.Fail("after rotating, the panel reads %q", panel)
	}

	b.Press("main", "^Reveal secret$")
	b.Press("main", "^Show secret$")
	b.WaitText("main", "Done, back to the endpoint")
	b.Press("main", "^Done, back to the endpoint$")
	b.WaitJS("back on the endpoint's page", `location.pathname + location.search == `+browser.JS(page))

	// At a phone's width neither page scrolls sideways.
	b.Do("a phone's viewport", chromedp.EmulateViewport(390, 844))
	for _, path := range []string{page, "/webhook-events"} {
		b.Open(path)
		var wide bool
		if err := b.EvalJS("document.documentElement.scrollWidth > document.documentElement.clientWidth", &wide); err != nil || wide {
			b.Shot("too wide at 390")
			b.Fail("%s scrolls sideways at 390 px (%v)", path, err)
		}
	}
	b.Shot("event catalogue at 390")
}
