package e2e

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"cloudplane/e2e/browser"
)

// focused describes the element that has the focus: its tag, name or id,
// and text, whether it is inside the form formSel and, for a button, its
// name.
func (b *tab) focused(formSel string) (desc string, inForm bool, button string) {
	b.T.Helper()
	var f struct {
		Desc   string
		InForm bool
		Button string
	}
	if err := b.EvalJS(`(e => ({
		desc: e.tagName + "#" + (e.id || e.name || "") + " " + (e.textContent || "").trim().slice(0, 40) + " " + (e.value || "").slice(0, 20),
		inForm: !!e.closest(`+browser.JS(formSel)+`),
		button: e.tagName === "BUTTON" ? e.textContent.trim() : ""}))(document.activeElement)`, &f); err != nil {
		b.Fail("read the focus: %v", err)
	}
	return f.Desc, f.InForm, f.Button
}

// tabToSubmit starts from the page's skip link (toSkipLink), follows it
// with Enter, then presses Tab until the focus
// is on the form's button named submit, failing if the focus stays put
// (a trap) or it takes more than limit presses. It returns the stops
// inside the form, in order.
func (b *tab) tabToSubmit(formSel, submit string, limit int) []string {
	b.T.Helper()
	b.toSkipLink()
	b.Do("follow the skip link", chromedp.KeyEvent(kb.Enter))
	re := regexp.MustCompile(submit)
	var stops []string
	last := ""
	for range limit {
		b.Do("press Tab", chromedp.KeyEvent(kb.Tab))
		desc, inForm, button := b.focused(formSel)
		if desc == last {
			b.Fail("the focus stays on %s when Tab is pressed: a keyboard trap (stops so far %q)", desc, stops)
		}
		last = desc
		if inForm {
			stops = append(stops, desc)
			if button != "" && re.MatchString(button) {
				// Shift+Tab leaves the button again: no trap backwards.
				b.Do("press Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
				if back, _, _ := b.focused(formSel); back == desc {
					b.Fail("Shift+Tab leaves the focus on %s", desc)
				}
				return stops
			}
		}
	}
	b.Fail("%d Tab presses from the skip link did not reach the %q button of %s (stops in the form: %q)", limit, submit, formSel, stops)
	return nil
}

// Key forms are reached and completed from the keyboard alone: from the
// skip link, Tab reaches each field and then the form's button without a
// trap; the filesystem form is filled in and sent that way.
func TestKeyboardReachesEachFormsButton(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.Open("/sign-in")
	if stops := b.tabToSubmit("main form", "^Sign in$", 20); len(stops) < 3 {
		b.Fail("the sign-in form's Tab stops: %q", stops)
	}
	b.signIn(o)
	for _, f := range []struct{ page, form, submit string }{
		{"/ssh-keys", `main form[action="/ssh-keys"]`, "^Add public key$"},
		{"/api-keys", `main form[action="/api-keys"]`, "^Generate key$"},
		{"/tickets/new", `main form[action="/tickets"]`, "^Open ticket$"},
		{"/instances/launch", `main form[action="/instances"]`, "^Launch instance$"},
	} {
		if status := b.Open(f.page); status != http.StatusOK {
			b.Fail("%s answered %d", f.page, status)
		}
		b.tabToSubmit(f.form, f.submit, 80)
	}

	// Completing a form: the name typed, the region chosen with the arrow
	// keys, Enter on the button.
	b.Open("/filesystems")
	form := `main form[action="/filesystems"]`
	b.toSkipLink()
	b.Do("follow the skip link", chromedp.KeyEvent(kb.Enter))
	for i := 0; ; i++ {
		if i == 40 {
			b.Fail("Tab never reached the filesystem's name")
		}
		b.Do("press Tab", chromedp.KeyEvent(kb.Tab))
		if desc, _, _ := b.focused(form); regexp.MustCompile(`^INPUT#(field-)?name `).MatchString(desc) {
			break
		}
	}
	b.Do("type a name", chromedp.KeyEvent("kb-data"))
	b.Do("Tab to the region", chromedp.KeyEvent(kb.Tab))
	if desc, _, _ := b.focused(form); !regexp.MustCompile(`^SELECT#`).MatchString(desc) {
		b.Fail("after the name, the focus is on %s, want the region", desc)
	}
	b.Do("choose a region", chromedp.KeyEvent(kb.ArrowDown))
	b.Do("Tab to the button", chromedp.KeyEvent(kb.Tab))
	if _, _, button := b.focused(form); button != "Create filesystem" {
		b.Fail("after the region, the focus is on %q, want Create filesystem", button)
	}
	b.Do("press Enter", chromedp.KeyEvent(kb.Enter))
	b.WaitText("#flash", "kb-data")
	b.Shot("filesystem created from the keyboard")
}

// toSkipLink puts the focus on the page's first Tab stop, the "Skip to
// content" link, as a first Tab on a page just loaded does (a page with
// an autofocused field starts from that field instead).
func (b *tab) toSkipLink() {
	b.T.Helper()
	var first bool
	if err := b.EvalJS(`(l => (l.focus(), document.activeElement === l &&
		[...document.querySelectorAll("a[href],button,input,select,textarea,summary,[tabindex]")].find(e => e.tabIndex >= 0) === l))(
		document.querySelector("a.skip-link"))`, &first); err != nil || !first {
		b.Fail("the skip link is not the page's first Tab stop (%v)", err)
	}
}
