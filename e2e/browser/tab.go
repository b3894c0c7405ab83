package browser

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

// Tab is one test's browser tab, in a browser context of its own (its own
// cookies), with the helpers the flows are written in. Every helper fails
// the test, with a screenshot, when its step does not happen in time.
type Tab struct {
	T     *testing.T
	Ctx   context.Context
	Base  string // the server's URL, http://127.0.0.1:<port>
	Label string // names its screenshots; the test's name unless set
	shots *Shots

	mu       sync.Mutex
	problems []string // script errors and CSP violations seen
}

// NewTab opens a tab of the browser (Start's context) on the server at
// base, saving its screenshots into shots. Script errors and CSP
// violations seen in the tab fail the test when it ends.
func NewTab(t *testing.T, browser context.Context, base string, shots *Shots) *Tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	b := &Tab{T: t, Ctx: ctx, Base: base, shots: shots}
	if err := chromedp.Do(ctx); err != nil { // opens the tab; no deadline, see Start
		t.Fatalf("open a browser tab: %v", err)
	}
	b.watchConsole()
	t.Cleanup(b.reportProblems) // runs before cancel
	b.Do("set the viewport", chromedp.EmulateViewport(ViewWidth, ViewHeight))
	return b
}

// watchConsole records script errors, uncaught exceptions and CSP
// violations. Failed requests (source "network") are left out: flows load
// 404 and 422 pages on purpose.
func (b *Tab) watchConsole() {
	msgs := chromedp.Console(b.Ctx)
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

func (b *Tab) reportProblems() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.T.Errorf("browser console: %s", p)
	}
}

// Fail stops the test with what went wrong, where, and a screenshot.
func (b *Tab) Fail(format string, args ...any) {
	b.T.Helper()
	where := "?"
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
	defer cancel()
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err == nil {
		where = loc
	}
	path := b.Save("FAILED")
	b.T.Fatalf("%s\n(page %s, screenshot %s)", fmt.Sprintf(format, args...), where, path)
}

// Do runs browser actions with the step timeout.
func (b *Tab) Do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.Fail("%s: %v", what, err)
	}
}

// Open loads a page of the server and returns the HTTP status of the
// document (after redirects).
func (b *Tab) Open(path string) int {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(b.Base+path))
	if err != nil {
		b.Fail("open %s: %v", path, err)
	}
	b.Ready()
	return int(resp.Status)
}

// Ready waits until the page has loaded with its script, so that htmx
// handles the clicks that follow.
func (b *Tab) Ready() {
	b.T.Helper()
	b.WaitJS("the page to load", `document.readyState === "complete" && !!window.htmx`)
}

// Settled waits until htmx has no request in flight and has settled what
// the last one swapped in. htmx drops .htmx-request before it settles:
// new content (such as the header swapped out of band, search field and
// all) is bound to its triggers only a settle delay later, and until then
// it wears .htmx-added and its target .htmx-settling.
func (b *Tab) Settled() {
	b.T.Helper()
	b.WaitJS("htmx requests to finish and settle", `document.readyState === "complete" &&
		!document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")`)
}

// EvalJS evaluates expr, with the find helpers in scope, into out. It
// gives up after a few seconds: during a navigation the page's context
// can vanish under it, and WaitJS tries again.
func (b *Tab) EvalJS(expr string, out any) error {
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte]("(() => {"+findJS+"\nreturn ("+expr+");})()"))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// WaitJS polls expr until it is truthy, across navigations and swaps.
func (b *Tab) WaitJS(what, expr string) {
	b.T.Helper()
	b.WaitValue(what, expr, new(bool))
}

// WaitValue polls expr until it is truthy (for a string, non-empty) and
// stores it in out.
func (b *Tab) WaitValue(what, expr string, out any) {
	b.T.Helper()
	deadline := time.Now().Add(StepTimeout)
	var last error
	for {
		var v any
		err := b.EvalJS(expr, &v)
		if err == nil && truthy(v) {
			raw, _ := json.Marshal(v)
			if err := json.Unmarshal(raw, out); err != nil {
				b.Fail("waiting for %s: %v", what, err)
			}
			return
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			if last != nil {
				b.Fail("gave up after %s waiting for %s (last error: %v)", StepTimeout, what, last)
			}
			b.Fail("gave up after %s waiting for %s", StepTimeout, what)
		}
		b.Pause(what, 100*time.Millisecond)
	}
}

// Pause waits between two polls, unless the tab is gone.
func (b *Tab) Pause(what string, d time.Duration) {
	b.T.Helper()
	select {
	case <-time.After(d):
	case <-b.Ctx.Done():
		b.Fail("waiting for %s: %v", what, b.Ctx.Err())
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

// JS quotes a Go value as a JavaScript literal.
func JS(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Find waits for an element in scope (a CSS selector; "" is the whole
// page) of the given kind ("control", "clickable" or a CSS selector)
// whose accessible name matches the pattern (a JavaScript regular
// expression, case-insensitive), and returns a CSS selector for it.
func (b *Tab) Find(scope, kind, pattern string) chromedp.CSS {
	b.T.Helper()
	var sel string
	b.WaitValue(fmt.Sprintf("a %s named /%s/ in %q", kind, pattern, scope),
		fmt.Sprintf("find(%s, %s, %s)", JS(scope), JS(kind), JS(pattern)), &sel)
	return chromedp.CSS(sel)
}

// Has reports at once whether such an element exists, without waiting.
func (b *Tab) Has(scope, kind, pattern string) bool {
	b.T.Helper()
	var sel any
	if err := b.EvalJS(fmt.Sprintf("find(%s, %s, %s)", JS(scope), JS(kind), JS(pattern)), &sel); err != nil {
		b.Fail("look for a %s named /%s/: %v", kind, pattern, err)
	}
	return truthy(sel)
}

// Fill types value into the control labelled by pattern, replacing what
// it held.
func (b *Tab) Fill(scope, label, value string) {
	b.T.Helper()
	b.TypeInto(b.Find(scope, "control", label), value)
}

func (b *Tab) Clear(sel chromedp.CSS) {
	b.T.Helper()
	var ok bool
	if err := b.EvalJS(fmt.Sprintf(`(() => { const el = document.querySelector(%s); el.value = ""; return true; })()`, JS(string(sel))), &ok); err != nil {
		b.Fail("clear %s: %v", sel, err)
	}
}

// Choose picks the option whose value or text matches option: in the
// select labelled by label, among the radio buttons of the fieldset whose
// legend matches label, or typed when the control is a text field.
func (b *Tab) Choose(scope, label, option string) {
	b.T.Helper()
	var target struct{ Kind, Sel, Value string }
	b.WaitValue(fmt.Sprintf("a choice /%s/ for /%s/ in %q", option, label, scope),
		fmt.Sprintf("chooseTarget(%s, %s, %s)", JS(scope), JS(label), JS(option)), &target)
	sel := chromedp.CSS(target.Sel)
	switch target.Kind {
	case "select":
		var ok bool
		if err := b.EvalJS(fmt.Sprintf("selectValue(%s, %s)", JS(target.Sel), JS(target.Value)), &ok); err != nil {
			b.Fail("choose %s in %s: %v", option, label, err)
		}
	case "radio":
		b.Do("choose "+option, chromedp.Click(sel))
	default:
		b.TypeInto(sel, option)
	}
}

// FindAll returns selectors for every such element there is now.
func (b *Tab) FindAll(scope, kind, pattern string) []chromedp.CSS {
	b.T.Helper()
	var sels []string
	if err := b.EvalJS(fmt.Sprintf("findAll(%s, %s, %s)", JS(scope), JS(kind), JS(pattern)), &sels); err != nil {
		b.Fail("look for every %s named /%s/: %v", kind, pattern, err)
	}
	out := make([]chromedp.CSS, len(sels))
	for i, s := range sels {
		out[i] = chromedp.CSS(s)
	}
	return out
}

// Try evaluates a find helper once and returns the selector it gave, or
// "" when it found nothing.
func (b *Tab) Try(expr string) string {
	b.T.Helper()
	var sel any
	if err := b.EvalJS(expr, &sel); err != nil {
		b.Fail("evaluate %s: %v", expr, err)
	}
	if s, ok := sel.(string); ok {
		return s
	}
	return ""
}

// TypeInto replaces the value of the control sel with value.
func (b *Tab) TypeInto(sel chromedp.CSS, value string) {
	b.T.Helper()
	b.Clear(sel)
	b.Do("type into "+string(sel), chromedp.SendKeys(sel, value))
}

// Press clicks the button or link named by pattern.
func (b *Tab) Press(scope, name string) {
	b.T.Helper()
	sel := b.Find(scope, "clickable", name)
	b.Do("click "+name, chromedp.Click(sel))
}

// WaitText waits until the text of scope matches pattern.
func (b *Tab) WaitText(scope, pattern string) {
	b.T.Helper()
	b.WaitJS(fmt.Sprintf("text /%s/ in %q", pattern, scope), fmt.Sprintf("textMatches(%s, %s)", JS(scope), JS(pattern)))
}

// Text returns the visible text of the first element matching css.
func (b *Tab) Text(css string) string {
	b.T.Helper()
	var s string
	b.WaitValue("the text of "+css, fmt.Sprintf(`(document.querySelector(%s) || {}).innerText || ""`, JS(css)), &s)
	return s
}

// RowWith waits for a table row (or list item) in main whose text
// matches pattern and returns a selector for it.
func (b *Tab) RowWith(pattern string) string {
	b.T.Helper()
	var sel string
	b.WaitValue("a row matching /"+pattern+"/", fmt.Sprintf("rowWith(%s)", JS(pattern)), &sel)
	return sel
}

// NavTo follows the header's navigation link named by pattern and waits
// for its page to be current.
func (b *Tab) NavTo(name string) {
	b.T.Helper()
	b.Press("#site-header nav", name)
	b.WaitJS("the page of nav link /"+name+"/ to be current",
		fmt.Sprintf(`!!find("#site-header nav", "a[aria-current=page]", %s)`, JS(name)))
	b.Settled()
}

// ReloadUntil reloads the current page until expr is truthy, for state
// that changes on the server with time (an instance booting) and that
// the page shows when it is loaded.
func (b *Tab) ReloadUntil(what, expr string) {
	b.T.Helper()
	deadline := time.Now().Add(StepTimeout)
	for {
		var loc string
		if err := b.EvalJS("location.pathname + location.search", &loc); err != nil {
			b.Fail("read the location: %v", err)
		}
		b.Open(loc)
		var v any
		if err := b.EvalJS(expr, &v); err == nil && truthy(v) {
			return
		}
		if time.Now().After(deadline) {
			b.Fail("gave up after %s reloading until %s", StepTimeout, what)
		}
		b.Pause(what, 500*time.Millisecond)
	}
}

// Shot saves a full-page screenshot of the current page for a person to
// look at, named after the test and the step.
func (b *Tab) Shot(step string) {
	b.T.Helper()
	b.Settled()
	b.T.Logf("screenshot %s", b.Save(step))
}

// Save writes the screenshot and returns its path; failures to take one
// are reported in place of the path, since Save also runs when failing.
func (b *Tab) Save(step string) string {
	label := b.Label
	if label == "" {
		label = b.T.Name()
	}
	name := fmt.Sprintf("%s-%02d-%s.png", Slug(label), b.shots.next(label), Slug(step))
	path := filepath.Join(b.shots.Dir, name)
	ctx, cancel := context.WithTimeout(b.Ctx, StepTimeout)
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

// fullPage captures the whole document at the viewport's width (wider
// only when the page scrolls sideways, to show it), however long it is.
func fullPage(ctx context.Context, t *chromedp.Target) ([]byte, error) {
	m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	if m.CSSContentSize == nil {
		return nil, errors.New("no content size")
	}
	w, h := int64(ViewWidth), int64(ViewHeight)
	if v := m.CSSLayoutViewport; v != nil && v.ClientWidth > 0 {
		w, h = v.ClientWidth, v.ClientHeight
	}
	res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: new(true),
		FromSurface:           new(true),
		Clip: &page.Viewport{Width: math.Max(float64(w), math.Ceil(m.CSSContentSize.Width)),
			Height: math.Max(float64(h), math.Ceil(m.CSSContentSize.Height)), Scale: 1},
	})
	return res.Data, err
}

// WantFieldError waits for an error beside the control labelled by
// label and fails unless its message contains want.
func (b *Tab) WantFieldError(scope, label, want string) {
	b.T.Helper()
	if msg := b.FieldError(scope, label); !strings.Contains(msg, want) {
		b.Fail("the error beside /%s/ is %q, want it to say %q", label, msg, want)
	}
}

// FieldError waits until the control labelled by pattern is marked
// invalid, as the shared field component marks a domain error beside its
// field, and returns the message its aria-describedby points at.
func (b *Tab) FieldError(scope, label string) string {
	b.T.Helper()
	var msg string
	b.WaitValue("an error beside the field /"+label+"/",
		fmt.Sprintf("fieldError(%s, %s)", JS(scope), JS(label)), &msg)
	return msg
}
