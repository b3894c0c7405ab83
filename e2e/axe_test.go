package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axe-core, vendored from npm (axe-core@4.14.1, e2e/axe/axe.min.js with
// its licence): the tests inject it into pages; it is never served.
const axeFile = "axe/axe.min.js"

// axeViolation is a rule axe-core found broken, with where.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axeCheck injects axe-core into the tab's page, runs it, and returns the
// serious and critical violations.
func (b *tab) axeCheck() []axeViolation {
	b.T.Helper()
	src, err := os.ReadFile(axeFile)
	if err != nil {
		b.Fail("read %s: %v", axeFile, err)
	}
	ctx, cancel := context.WithTimeout(b.Ctx, stepTimeout)
	defer cancel()
	// Through the DevTools protocol, which the page's Content-Security-
	// Policy does not govern.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(src)+"\n;true")); err != nil {
		b.Fail("inject axe-core: %v", err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document).then(r => JSON.stringify({
		passed: r.passes.length,
		violations: r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
			id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\s+/g, " "))}))}))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fail("run axe-core: %v", err)
	}
	var out struct {
		Passed     int
		Violations []axeViolation
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		b.Fail("axe-core's answer: %v", err)
	}
	// A run that checked nothing would pass any page.
	if out.Passed < 10 {
		b.Fail("axe-core passed only %d rules: did it run?", out.Passed)
	}
	b.T.Logf("axe-core on %s: %d rules passed, %d serious or critical violations", b.location(), out.Passed, len(out.Violations))
	return out.Violations
}

// axePages opens each page and fails the test with every serious or
// critical violation axe-core finds on any of them.
func (b *tab) axePages(pages ...string) {
	b.T.Helper()
	var report []string
	for _, p := range pages {
		if status := b.Open(p); status != http.StatusOK {
			b.Fail("%s answered %d", p, status)
		}
		b.Settled()
		for _, v := range b.axeCheck() {
			report = append(report, fmt.Sprintf("%s: %s (%s) %s\n    %s", p, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    ")))
		}
	}
	if len(report) > 0 {
		b.Fail("axe-core found %d serious or critical violations:\n%s", len(report), strings.Join(report, "\n"))
	}
}

// Every page an owner reaches, with something in each list, has no serious
// or critical accessibility violation by axe-core.
func TestAxeOwnerPages(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Axe check", "description": "A ticket to look at.", "type": "service_request"}).
		ok(t, http.StatusOK, &ticket)
	s.api(t, key, http.MethodPost, "/filesystems", map[string]string{"name": "axe-data", "region": "us-east-1"}).
		ok(t, http.StatusOK, nil)
	b := s.newTab(t)
	b.axePages("/sign-in", "/forgot-password")
	b.signIn(o)
	b.axePages("/", "/instances", "/instances/launch", "/ssh-keys", "/fabric", "/filesystems", "/firewall",
		"/firewall/global", "/firewall/rulesets", "/firewall/rulesets/new", "/api-keys", "/members", "/audit-events",
		"/tickets", "/tickets/new", "/tickets/"+ticket.ID, "/webhook", "/webhook-deliveries", "/account", "/usage",
		"/search?q=axe", "/budget")

	// The search field's suggestions, open.
	b.Open("/filesystems")
	b.Do("type into the search field", chromedp.Focus(chromedp.CSS("#site-search")), chromedp.KeyEvent("axe"))
	b.WaitText("#search-suggest", "axe-data")
	b.axeReport("/filesystems with search suggestions", b.axeCheck())

	// At a phone's width, with the menu open too.
	b.narrow()
	b.axePages("/", "/instances/launch", "/tickets/"+ticket.ID, "/search?q=axe")
	b.Shot("search page at 390 px")
	b.Do("open the menu", chromedp.Click(chromedp.CSS(".menu-toggle summary")))
	b.Shot("menu open at 390 px")
	b.axeReport("/ with the menu open at 390 px", b.axeCheck())
}

// narrow makes the tab a phone's screen, 390 by 844 CSS pixels.
func (b *tab) narrow() {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		b.Fail("emulate a phone: %v", err)
	}
}

// axeReport fails the test with the violations found on what.
func (b *tab) axeReport(what string, vs []axeViolation) {
	b.T.Helper()
	var report []string
	for _, v := range vs {
		report = append(report, fmt.Sprintf("%s: %s (%s) %s\n    %s", what, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    ")))
	}
	if len(report) > 0 {
		b.Fail("axe-core found %d serious or critical violations:\n%s", len(report), strings.Join(report, "\n"))
	}
}

// Every page support staff reach has none either.
func TestAxeSupportPages(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID, AccountID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Axe check for support", "description": "A ticket to look at.", "type": "service_request"}).
		ok(t, http.StatusOK, &ticket)
	help := owner{email: fmt.Sprintf("axe-help-%d@example.com", owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", help.email, "--password", help.password, "--role", "support")
	b := s.newTab(t)
	b.signIn(help)
	pages := []string{"/", "/tickets", "/tickets/" + ticket.ID, "/webhook-deliveries", "/mail-log", "/accounts",
		"/audit-events", "/account", "/search?q=" + o.email[:6]}
	b.Open("/accounts")
	if acct := b.Try(`(document.querySelector("main a[href^='/accounts/']") || {getAttribute: () => ""}).getAttribute("href")`); acct != "" {
		pages = append(pages, acct)
	}
	b.axePages(pages...)
}
