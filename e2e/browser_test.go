package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Pages are looked at 1280 CSS pixels wide, a common laptop width.
const (
	viewWidth  = 1280
	viewHeight = 900
)

// startBrowser starts the one headless Chromium of the run. The flags
// make it work as root in a container without network: no sandbox, no
// GPU, and nothing that calls home (QUIC, component updates, sync).
func startBrowser(chrome, work string) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(filepath.Join(work, "chromium")),
		chromedp.WindowSize(viewWidth, viewHeight),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	stop := func() { cancelCtx(); cancelAlloc() }
	// The first Do starts the browser and binds it to ctx, so it gets no
	// deadline of its own; a browser that never answers is given up on.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			return nil, stop, fmt.Errorf("start %s: %w", chrome, err)
		}
	case <-time.After(60 * time.Second):
		return nil, stop, fmt.Errorf("start %s: no answer within 60s", chrome)
	}
	return ctx, stop, nil
}

// tab is one test's browser tab, in a browser context of its own (its own
// cookies), with the helpers the flows are written in. Every helper fails
// the test, with a screenshot, when its step does not happen in time.
type tab struct {
	t     *testing.T
	s     *suite
	ctx   context.Context
	label string // names its screenshots; the test's name unless set

	mu       sync.Mutex
	problems []string // script errors and CSP violations seen
}

func (s *suite) newTab(t *testing.T) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(s.browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	b := &tab{t: t, s: s, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // opens the tab; no deadline, see startBrowser
		t.Fatalf("open a browser tab: %v", err)
	}
	b.watchConsole()
	t.Cleanup(b.reportProblems) // runs before cancel
	b.do("set the viewport", chromedp.EmulateViewport(viewWidth, viewHeight))
	return b
}

// watchConsole records script errors, uncaught exceptions and CSP
// violations. Failed requests (source "network") are left out: flows load
// 404 and 422 pages on purpose.
func (b *tab) watchConsole() {
	msgs := chromedp.Console(b.ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.IsException()) && m.Source != "network" {
				b.mu.Lock()
				b.problems = append(b.problems, m.String())
				b.mu.Unlock()
			}
		}
	}()
}

func (b *tab) reportProblems() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("browser console: %s", p)
	}
}

// fail stops the test with what went wrong, where, and a screenshot.
func (b *tab) fail(format string, args ...any) {
	b.t.Helper()
	where := "?"
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err == nil {
		where = loc
	}
	path := b.save("FAILED")
	b.t.Fatalf("%s\n(page %s, screenshot %s)", fmt.Sprintf(format, args...), where, path)
}

// do runs browser actions with the step timeout.
func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail("%s: %v", what, err)
	}
}

// open loads a page of the server and returns the HTTP status of the
// document (after redirects).
func (b *tab) open(path string) int {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(b.s.base+path))
	if err != nil {
		b.fail("open %s: %v", path, err)
	}
	b.ready()
	return int(resp.Status)
}

// ready waits until the page has loaded with its script, so that htmx
// handles the clicks that follow.
func (b *tab) ready() {
	b.t.Helper()
	b.waitJS("the page to load", `document.readyState === "complete" && !!window.htmx`)
}

// settled waits until htmx has no request in flight.
func (b *tab) settled() {
	b.t.Helper()
	b.waitJS("htmx requests to finish", `document.readyState === "complete" && !document.querySelector(".htmx-request")`)
}

// evalJS evaluates expr, with the find helpers in scope, into out. It
// gives up after a few seconds: during a navigation the page's context
// can vanish under it, and waitJS tries again.
func (b *tab) evalJS(expr string, out any) error {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte]("(() => {"+findJS+"\nreturn ("+expr+");})()"))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// waitJS polls expr until it is truthy, across navigations and swaps.
func (b *tab) waitJS(what, expr string) {
	b.t.Helper()
	b.waitValue(what, expr, new(bool))
}

// waitValue polls expr until it is truthy (for a string, non-empty) and
// stores it in out.
func (b *tab) waitValue(what, expr string, out any) {
	b.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	var last error
	for {
		var v any
		err := b.evalJS(expr, &v)
		if err == nil && truthy(v) {
			raw, _ := json.Marshal(v)
			if err := json.Unmarshal(raw, out); err != nil {
				b.fail("waiting for %s: %v", what, err)
			}
			return
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			if last != nil {
				b.fail("gave up after %s waiting for %s (last error: %v)", stepTimeout, what, last)
			}
			b.fail("gave up after %s waiting for %s", stepTimeout, what)
		}
		b.pause(what, 100*time.Millisecond)
	}
}

// pause waits between two polls, unless the tab is gone.
func (b *tab) pause(what string, d time.Duration) {
	b.t.Helper()
	select {
	case <-time.After(d):
	case <-b.ctx.Done():
		b.fail("waiting for %s: %v", what, b.ctx.Err())
	}
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	}
	return true
}

// js quotes a Go value as a JavaScript literal.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// find waits for an element in scope (a CSS selector; "" is the whole
// page) of the given kind ("control", "clickable" or a CSS selector) whose accessible name matches the pattern (a JavaScript
// regular expression, case-insensitive), and returns a CSS selector for
// it.
func (b *tab) find(scope, kind, pattern string) chromedp.CSS {
	b.t.Helper()
	var sel string
	b.waitValue(fmt.Sprintf("a %s named /%s/ in %q", kind, pattern, scope),
		fmt.Sprintf("find(%s, %s, %s)", js(scope), js(kind), js(pattern)), &sel)
	return chromedp.CSS(sel)
}

// has reports at once whether such an element exists, without waiting.
func (b *tab) has(scope, kind, pattern string) bool {
	b.t.Helper()
	var sel any
	if err := b.evalJS(fmt.Sprintf("find(%s, %s, %s)", js(scope), js(kind), js(pattern)), &sel); err != nil {
		b.fail("look for a %s named /%s/: %v", kind, pattern, err)
	}
	return truthy(sel)
}

// fill types value into the control labelled by pattern, replacing what
// it held.
func (b *tab) fill(scope, label, value string) {
	b.t.Helper()
	b.typeInto(b.find(scope, "control", label), value)
}

func (b *tab) clear(sel chromedp.CSS) {
	b.t.Helper()
	var ok bool
	if err := b.evalJS(fmt.Sprintf(`(() => { const el = document.querySelector(%s); el.value = ""; return true; })()`, js(string(sel))), &ok); err != nil {
		b.fail("clear %s: %v", sel, err)
	}
}

// choose picks the option whose value or text matches option: in the
// select labelled by label, among the radio buttons of the fieldset whose
// legend matches label, or typed when the control is a text field.
func (b *tab) choose(scope, label, option string) {
	b.t.Helper()
	var target struct{ Kind, Sel, Value string }
	b.waitValue(fmt.Sprintf("a choice /%s/ for /%s/ in %q", option, label, scope),
		fmt.Sprintf("chooseTarget(%s, %s, %s)", js(scope), js(label), js(option)), &target)
	sel := chromedp.CSS(target.Sel)
	switch target.Kind {
	case "select":
		var ok bool
		if err := b.evalJS(fmt.Sprintf("selectValue(%s, %s)", js(target.Sel), js(target.Value)), &ok); err != nil {
			b.fail("choose %s in %s: %v", option, label, err)
		}
	case "radio":
		b.do("choose "+option, chromedp.Click(sel))
	default:
		b.typeInto(sel, option)
	}
}

// findAll returns selectors for every such element there is now.
func (b *tab) findAll(scope, kind, pattern string) []chromedp.CSS {
	b.t.Helper()
	var sels []string
	if err := b.evalJS(fmt.Sprintf("findAll(%s, %s, %s)", js(scope), js(kind), js(pattern)), &sels); err != nil {
		b.fail("look for every %s named /%s/: %v", kind, pattern, err)
	}
	out := make([]chromedp.CSS, len(sels))
	for i, s := range sels {
		out[i] = chromedp.CSS(s)
	}
	return out
}

// try evaluates a find helper once and returns the selector it gave, or
// "" when it found nothing.
func (b *tab) try(expr string) string {
	b.t.Helper()
	var sel any
	if err := b.evalJS(expr, &sel); err != nil {
		b.fail("evaluate %s: %v", expr, err)
	}
	if s, ok := sel.(string); ok {
		return s
	}
	return ""
}

// typeInto replaces the value of the control sel with value.
func (b *tab) typeInto(sel chromedp.CSS, value string) {
	b.t.Helper()
	b.clear(sel)
	b.do("type into "+string(sel), chromedp.SendKeys(sel, value))
}

// press clicks the button or link named by pattern.
func (b *tab) press(scope, name string) {
	b.t.Helper()
	sel := b.find(scope, "clickable", name)
	b.do("click "+name, chromedp.Click(sel))
}

// waitText waits until the text of scope matches pattern.
func (b *tab) waitText(scope, pattern string) {
	b.t.Helper()
	b.waitJS(fmt.Sprintf("text /%s/ in %q", pattern, scope), fmt.Sprintf("textMatches(%s, %s)", js(scope), js(pattern)))
}

// text returns the visible text of the first element matching css.
func (b *tab) text(css string) string {
	b.t.Helper()
	var s string
	b.waitValue("the text of "+css, fmt.Sprintf(`(document.querySelector(%s) || {}).innerText || ""`, js(css)), &s)
	return s
}

// rowWith waits for a table row (or list item) in main whose text
// matches pattern and returns a selector for it.
func (b *tab) rowWith(pattern string) string {
	b.t.Helper()
	var sel string
	b.waitValue("a row matching /"+pattern+"/", fmt.Sprintf("rowWith(%s)", js(pattern)), &sel)
	return sel
}

// navTo follows the header's navigation link named by pattern and waits
// for its page to be current.
func (b *tab) navTo(name string) {
	b.t.Helper()
	b.press("#site-header nav", name)
	b.waitJS("the page of nav link /"+name+"/ to be current",
		fmt.Sprintf(`!!find("#site-header nav", "a[aria-current=page]", %s)`, js(name)))
	b.settled()
}

// reloadUntil reloads the current page until expr is truthy, for state
// that changes on the server with time (an instance booting) and that
// the page shows when it is loaded.
func (b *tab) reloadUntil(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		var loc string
		if err := b.evalJS("location.pathname + location.search", &loc); err != nil {
			b.fail("read the location: %v", err)
		}
		b.open(loc)
		var v any
		if err := b.evalJS(expr, &v); err == nil && truthy(v) {
			return
		}
		if time.Now().After(deadline) {
			b.fail("gave up after %s reloading until %s", stepTimeout, what)
		}
		b.pause(what, 500*time.Millisecond)
	}
}

// shot saves a full-page screenshot of the current page for a person to
// look at, named after the test and the step.
func (b *tab) shot(step string) {
	b.t.Helper()
	b.settled()
	b.t.Logf("screenshot %s", b.save(step))
}

// save writes the screenshot and returns its path; failures to take one
// are reported in place of the path, since save also runs when failing.
func (b *tab) save(step string) string {
	label := b.label
	if label == "" {
		label = b.t.Name()
	}
	name := fmt.Sprintf("%s-%02d-%s.png", slug(label), b.s.nextShot(label), slug(step))
	path := filepath.Join(b.s.shots, name)
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, fullPage)
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		return "(no screenshot: " + err.Error() + ")"
	}
	return path
}

// nextShot numbers the screenshots of a label (a test, or a flow shared
// by tests) in the order taken, across tabs.
func (s *suite) nextShot(label string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shotSeq == nil {
		s.shotSeq = map[string]int{}
	}
	s.shotSeq[label]++
	return s.shotSeq[label]
}

// fullPage captures the whole document at the viewport's width, however
// long it is.
func fullPage(ctx context.Context, t *chromedp.Target) ([]byte, error) {
	m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	if m.CSSContentSize == nil {
		return nil, errors.New("no content size")
	}
	res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: new(true),
		FromSurface:           new(true),
		Clip: &page.Viewport{Width: viewWidth,
			Height: math.Max(viewHeight, math.Ceil(m.CSSContentSize.Height)), Scale: 1},
	})
	return res.Data, err
}

// findJS is evaluated before every expression: small helpers that find
// elements the way a person does, by the text of their label or their
// accessible name, and hand back a selector chromedp can click or type
// into (an attribute data-e2e marks the element).
const findJS = `
const norm = s => (s || "").replace(/\s+/g, " ").trim();
const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" &&
  !el.closest("[aria-hidden=true]");
// textOf is an element's text as assistive technology reads it: parts
// marked aria-hidden (decorative icons, "+" signs) left out.
function textOf(el) {
  if (el.nodeType === Node.TEXT_NODE) return el.textContent;
  if (el.nodeType !== Node.ELEMENT_NODE || el.getAttribute("aria-hidden") === "true") return "";
  return Array.from(el.childNodes).map(textOf).join("");
}
function nameOf(el) {
  const aria = el.getAttribute("aria-label");
  if (aria) return norm(aria);
  const by = el.getAttribute("aria-labelledby");
  if (by) return norm(by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent).join(" "));
  if (el.labels && el.labels.length) return norm(Array.from(el.labels).map(textOf).join(" "));
  if (el.tagName === "INPUT" && /^(submit|button)$/.test(el.type)) return norm(el.value);
  return norm(textOf(el)) || norm(el.getAttribute("title"));
}
const kinds = {
  control: "input:not([type=hidden]):not([type=submit]):not([type=button]),select,textarea",
  // What a person may click: buttons, and links (styled as buttons or not).
  clickable: "button,input[type=submit],input[type=button],[role=button],a[href]",
};
function mark(el) {
  if (!el.dataset.e2e) {
    window.__e2eSeq = (window.__e2eSeq || 0) + 1;
    el.dataset.e2e = String(window.__e2eSeq);
  }
  return '[data-e2e="' + el.dataset.e2e + '"]';
}
function all(scope, kind, pattern) {
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return [];
  const re = new RegExp(pattern, "i");
  return Array.from(root.querySelectorAll(kinds[kind] || kind)).filter(el => shown(el) && re.test(nameOf(el)));
}
function find(scope, kind, pattern) {
  const hits = all(scope, kind, pattern);
  return hits.length ? mark(hits[0]) : "";
}
function findAll(scope, kind, pattern) {
  return all(scope, kind, pattern).map(mark);
}
function linkTo(scope, pattern) {
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return "";
  const re = new RegExp(pattern, "i");
  const target = el => el.getAttribute("href") || el.getAttribute("hx-get") || el.getAttribute("formaction") || "";
  const el = Array.from(root.querySelectorAll("a[href],[hx-get],button[formaction]")).find(el => shown(el) && re.test(target(el)));
  return el ? mark(el) : "";
}
function formOf(sel) {
  const el = document.querySelector(sel);
  const form = el && (el.form || el.closest("form"));
  return form ? mark(form) : "";
}
function rowOf(sel, pattern) {
  const re = new RegExp(pattern, "i");
  const count = n => Array.from(n.querySelectorAll(kinds.control)).filter(c => re.test(nameOf(c))).length;
  let row = document.querySelector(sel);
  if (!row) return "";
  while (row.parentElement && !/^(FORM|MAIN|BODY)$/.test(row.parentElement.tagName) && count(row.parentElement) === 1) {
    row = row.parentElement;
  }
  return mark(row);
}
function textMatches(scope, pattern) {
  const root = scope ? document.querySelector(scope) : document.body;
  return !!root && new RegExp(pattern, "i").test(norm(root.innerText));
}
function rowWith(pattern) {
  const re = new RegExp(pattern, "i");
  const rows = Array.from(document.querySelectorAll("main tbody tr, main li"));
  const row = rows.find(r => shown(r) && re.test(norm(r.innerText)));
  return row ? mark(row) : "";
}
function chooseTarget(scope, label, pattern) {
  const re = new RegExp(pattern, "i");
  const control = all(scope, "control", label).find(el => el.type !== "radio" && el.type !== "checkbox");
  if (control && control.tagName !== "SELECT") return {kind: "text", sel: mark(control)};
  if (control) {
    const opt = Array.from(control.options).find(o => !o.disabled && (re.test(o.value) || re.test(norm(o.textContent))));
    return opt ? {kind: "select", sel: mark(control), value: opt.value} : null;
  }
  const root = scope ? document.querySelector(scope) : document;
  const labelRe = new RegExp(label, "i");
  const group = root && Array.from(root.querySelectorAll("fieldset, [role=radiogroup]")).find(g => shown(g) &&
    labelRe.test(norm((g.querySelector("legend") || {}).textContent) || nameOf(g)));
  if (!group) return null;
  const radio = Array.from(group.querySelectorAll("input[type=radio]")).find(r => !r.disabled &&
    (re.test(r.value) || re.test(nameOf(r))));
  return radio ? {kind: "radio", sel: mark(radio.labels && radio.labels[0] || radio)} : null;
}
function selectValue(sel, value) {
  const el = document.querySelector(sel);
  el.value = value;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return true;
}
function fieldError(scope, pattern) {
  return all(scope, "control", pattern).map(el => {
    if (el.getAttribute("aria-invalid") !== "true") return "";
    const ids = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
    return norm(ids.map(id => (document.getElementById(id) || {}).textContent).join(" ")) || "(no message)";
  }).find(Boolean) || "";
}
`

// wantFieldError waits for an error beside the control labelled by
// label and fails unless its message contains want.
func (b *tab) wantFieldError(scope, label, want string) {
	b.t.Helper()
	if msg := b.fieldError(scope, label); !strings.Contains(msg, want) {
		b.fail("the error beside /%s/ is %q, want it to say %q", label, msg, want)
	}
}

// fieldError waits until the control labelled by pattern is marked
// invalid, as the shared field component marks a domain error beside its
// field, and returns the message its aria-describedby points at.
func (b *tab) fieldError(scope, label string) string {
	b.t.Helper()
	var msg string
	b.waitValue("an error beside the field /"+label+"/",
		fmt.Sprintf("fieldError(%s, %s)", js(scope), js(label)), &msg)
	return msg
}
