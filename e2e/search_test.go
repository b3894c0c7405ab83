package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Ctrl-K focuses the header's search field from anywhere; typing shows
// suggestions below it, and Enter opens the first object found. "/"
// focuses the field too, and without script the field is a form for the
// /search page.
func TestSearchCtrlKTypeEnterOpensTheObject(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	var ticket struct{ ID string }
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{
		"subject": "Zephyr cluster unreachable", "description": "Since noon.", "type": "service_request"}).
		ok(t, http.StatusOK, &ticket)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("^SSH keys$")

	b.Do("press Ctrl-K", chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	b.WaitJS("the search field to have the focus", `document.activeElement && document.activeElement.id === "site-search"`)
	b.Do("type a query", chromedp.KeyEvent("zeph"))
	b.WaitText("#search-suggest", "Zephyr cluster unreachable")
	b.Shot("search suggestions")
	b.Do("press Enter", chromedp.KeyEvent(kb.Enter))
	b.WaitJS("the ticket to open", `location.pathname === "/tickets/`+ticket.ID+`"`)
	b.Ready()
	b.WaitText("main", "Zephyr cluster unreachable")

	// "/" outside a field focuses it; Enter before any suggestion came
	// still opens the object.
	var blurred bool
	if err := b.EvalJS(`(document.activeElement && document.activeElement.blur(), true)`, &blurred); err != nil {
		b.Fail("leave the field: %v", err)
	}
	// One keyDown carrying its text, as a keyboard sends it: chromedp's
	// KeyEvent sends a separate char event, which a prevented keydown
	// does not always cancel under the DevTools protocol.
	b.Do("press /", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "/", Code: "Slash",
			Text: "/", UnmodifiedText: "/", WindowsVirtualKeyCode: 191, NativeVirtualKeyCode: 191}
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "/", Code: "Slash",
			WindowsVirtualKeyCode: 191, NativeVirtualKeyCode: 191}
		_, err := chromedp.Call(ctx, input.DispatchKeyEvent, up)
		return err
	}))
	if v := b.Try(`document.getElementById("site-search").value`); v != "" {
		b.Fail("pressing / typed %q into the search field", v)
	}
	b.WaitJS("the search field to have the focus", `document.activeElement && document.activeElement.id === "site-search"`)
	// The browser is on the ticket's page already: a marker on this
	// document tells the new page (which has none) from the old one.
	if err := b.EvalJS(`(window.searchTestOldPage = true)`, &blurred); err != nil {
		b.Fail("mark the page: %v", err)
	}
	b.Do("type and press Enter", chromedp.KeyEvent("ZEPHYR"+kb.Enter))
	b.WaitJS("the ticket to open again", `!window.searchTestOldPage && location.pathname === "/tickets/`+ticket.ID+`" && document.readyState === "complete"`)

	// The page itself, as without script.
	b.Open("/search?q=zephyr")
	b.WaitText("main", "Results for “zephyr”")
	b.Press("main", "Zephyr cluster unreachable")
	b.WaitJS("the ticket to open from the page", `location.pathname === "/tickets/`+ticket.ID+`"`)
}
