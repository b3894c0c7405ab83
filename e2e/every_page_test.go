package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Every page, as an owner and as support staff, at 1280 and 390 px, has
// no serious or critical accessibility violation by axe-core, and every
// visible form on it is walked with the Tab key (formKeyboard): each
// visible control takes the focus, in the page's order, none traps it,
// and the submit button is reached. The pages are those the sideways
// test visits: every route linked from the signed-in pages.
func TestEveryPageAxeAndKeyboard(t *testing.T) {
	s := need(t)
	b, sb, _, _ := s.longValuePages(t)
	var problems []string
	for _, who := range []struct {
		name string
		tab  *tab
	}{{"owner", b}, {"support", sb}} {
		forms := 0
		who.tab.eachPage(who.name, func(path, route string) {
			for _, f := range who.tab.formsKeyboard() {
				forms++
				for _, p := range f {
					problems = append(problems, fmt.Sprintf("as %s, %s: %s", who.name, path, p))
				}
			}
			for _, w := range widths {
				who.tab.Do(fmt.Sprintf("set the viewport to %d", w.w), chromedp.EmulateViewport(w.w, w.h))
				for _, v := range who.tab.axeCheck() {
					problems = append(problems, fmt.Sprintf("as %s, %s at %d px: axe-core %s (%s) %s\n    %s",
						who.name, path, w.w, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    ")))
				}
			}
		})
		if forms < 10 {
			t.Errorf("as %s only %d forms were walked with the keyboard", who.name, forms)
		}
		t.Logf("as %s, %d forms walked with the keyboard", who.name, forms)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The checks catch what they look for: a control made unfocusable, a
// keyboard trap, an image without a text alternative and a button
// without a name, injected into a page, are each reported.
func TestEveryPageChecksCatchInjectedFaults(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.Open("/filesystems")
	b.Settled()
	if err := b.EvalJS(`(() => {
  const f = document.createElement("form");
  f.id = "injected";
  f.innerHTML = '<label>Name <input name="name"></label>' +
    '<label>Unreachable <input name="unreachable" tabindex="-1"></label>' +
    '<label>Region <select name="region"><option>a</option></select></label>' +
    '<div role="switch" aria-checked="false" aria-label="Custom switch">off</div>' +
    '<button type="submit">Inject</button>';
  document.querySelector("main").prepend(f);
  const g = document.createElement("form");
  g.id = "trap";
  g.innerHTML = '<label>Trapped <input name="trapped"></label><button type="submit">Trap</button>';
  g.querySelector("input").addEventListener("keydown", e => { if (e.key === "Tab") e.preventDefault(); });
  document.querySelector("main").prepend(g);
  return true;
})()`, new(bool)); err != nil {
		b.Fail("inject the forms: %v", err)
	}
	got := b.formKeyboard("#injected")
	if !hasProblem(got, `"Unreachable" never takes the focus`) || !hasProblem(got, `"Custom switch" never takes the focus`) {
		b.Fail("an unfocusable input and custom widget were not reported: %q", got)
	}
	if hasProblem(got, `"Name" never`) || hasProblem(got, `"Inject" never`) {
		b.Fail("focusable controls were reported: %q", got)
	}
	if got := b.formKeyboard("#trap"); !hasProblem(got, "keyboard trap") {
		b.Fail("a keyboard trap was not reported: %q", got)
	}
	if err := b.EvalJS(`(() => {
  const img = document.createElement("img");
  img.src = "/static/icon.svg";
  const btn = document.createElement("button");
  btn.type = "button";
  document.querySelector("main").prepend(img, btn);
  return true;
})()`, new(bool)); err != nil {
		b.Fail("inject the image and button: %v", err)
	}
	ids := map[string]bool{}
	for _, v := range b.axeCheck() {
		ids[v.ID] = true
	}
	if !ids["image-alt"] || !ids["button-name"] {
		b.Fail("axe-core did not report the injected faults: %v", ids)
	}
}

func hasProblem(problems []string, part string) bool {
	for _, p := range problems {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// formsKeyboard walks every visible form of the page with the keyboard
// (formKeyboard) and returns each one's problems.
func (b *tab) formsKeyboard() [][]string {
	b.T.Helper()
	var n int
	if err := b.EvalJS(`(() => {
  const forms = [...document.forms].filter(f => f.getClientRects().length > 0 && getComputedStyle(f).visibility !== "hidden");
  forms.forEach((f, i) => f.dataset.kbForm = i);
  return forms.length;
})()`, &n); err != nil {
		b.Fail("list the forms: %v", err)
	}
	var out [][]string
	for i := range n {
		out = append(out, b.formKeyboard(fmt.Sprintf(`form[data-kb-form="%d"]`, i)))
	}
	return out
}

// keyboardControls marks the visible controls of the form sel, in the
// page's order, with data-kb: inputs, selects, text areas, buttons,
// summaries, links and custom widgets (an ARIA role of a control, or a
// tabindex). A group of radio buttons is one stop, as Tab treats it (the
// arrow keys move within). It returns the stops' names, the index of the
// form's first submit button (-1 for none) and whether Enter in a field
// submits it.
const keyboardControls = `((sel) => {
  const form = document.querySelector(sel);
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden" && !e.closest("[inert]");
  // A tabindex makes a stop only when not negative: a negative one on an
  // element that is no control is a target for focus() (a message), not
  // a control made unfocusable.
  const sels = "input:not([type=hidden]),select,textarea,button,summary,a[href],[tabindex]:not([tabindex^='-']),[contenteditable=true]," +
    "[role=button],[role=switch],[role=checkbox],[role=radio],[role=tab],[role=slider],[role=combobox],[role=listbox],[role=spinbutton],[role=textbox]";
  const radios = new Set(), stops = [];
  let submit = -1, implicit = false;
  for (const e of form.querySelectorAll(sels)) {
    if (!shown(e) || e.disabled || e.closest("fieldset:disabled")) continue;
    if (e.type === "radio" && e.name) {
      if (radios.has(e.name)) continue;
      radios.add(e.name);
    }
    const name = (e.labels && e.labels[0] ? e.labels[0].textContent : "") || e.getAttribute("aria-label") || e.name || e.id || e.textContent || e.value || e.tagName;
    e.dataset.kb = stops.length;
    if (e.type === "radio" && e.name) e.dataset.kbGroup = e.name;
    stops.push(name.trim().replace(/\s+/g, " ").slice(0, 40));
    if (submit < 0 && (e.matches("button:not([type]),button[type=submit],input[type=submit],input[type=image]"))) submit = stops.length - 1;
    if (e.matches("input:not([type]),input[type=text],input[type=search],input[type=email],input[type=url],input[type=password],input[type=number],input[type=tel]")) implicit = true;
  }
  if (form.tabIndex < 0) form.setAttribute("tabindex", "-1");
  return {stops, submit, implicit};
})`

// activeStop says where the focus is: the data-kb index of the control
// (of the radio group's first marked button for any of its buttons), -1
// inside the form elsewhere, -2 outside it.
const activeStop = `((sel) => {
  const form = document.querySelector(sel), e = document.activeElement;
  if (!e || !form.contains(e) || e === form) return -2;
  if (e.dataset.kb !== undefined) return +e.dataset.kb;
  if (e.type === "radio" && e.name) {
    const first = form.querySelector('[data-kb-group="' + CSS.escape(e.name) + '"]');
    if (first) return +first.dataset.kb;
  }
  return -1;
})`

// formKeyboard checks the form sel from the keyboard alone: starting just
// before it, Tab must bring the focus to each visible control in the
// page's order, never leave it where it was (a trap), and reach the submit
// button (or, for a form without one, a field where Enter submits); then
// Shift+Tab must go back. It returns the problems found, in words.
func (b *tab) formKeyboard(sel string) []string {
	b.T.Helper()
	var info struct {
		Stops    []string
		Submit   int
		Implicit bool
	}
	if err := b.EvalJS(keyboardControls+`(`+jsString(sel)+`)`, &info); err != nil {
		b.Fail("mark the controls of %s: %v", sel, err)
	}
	if len(info.Stops) == 0 {
		return nil
	}
	var problems []string
	// The focus starts on the form itself (tabindex -1: it is no Tab
	// stop), so that Tab goes to what follows it.
	if err := b.EvalJS(`(f => { f.focus(); return document.activeElement === f; })(document.querySelector(`+jsString(sel)+`))`, new(bool)); err != nil {
		b.Fail("focus %s: %v", sel, err)
	}
	visited := map[int]bool{}
	var order []int
	last, entered := -3, false
	for range len(info.Stops)*2 + 10 {
		b.Do("press Tab", chromedp.KeyEvent(kb.Tab))
		var at int
		if err := b.EvalJS(activeStop+`(`+jsString(sel)+`)`, &at); err != nil {
			b.Fail("read the focus: %v", err)
		}
		if at == -2 && entered {
			break
		}
		if at >= 0 && at == last {
			problems = append(problems, fmt.Sprintf("form %s: the focus stays on %q when Tab is pressed: a keyboard trap", sel, info.Stops[at]))
			break
		}
		if at >= 0 {
			entered = true
			if visited[at] {
				problems = append(problems, fmt.Sprintf("form %s: Tab comes back to %q before leaving the form: the focus loops", sel, info.Stops[at]))
				break
			}
			visited[at] = true
			order = append(order, at)
		}
		last = at
	}
	for i, name := range info.Stops {
		if !visited[i] {
			problems = append(problems, fmt.Sprintf("form %s: %q never takes the focus from Tab", sel, name))
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			problems = append(problems, fmt.Sprintf("form %s: Tab goes from %q back to %q, against the page's order", sel, info.Stops[order[i-1]], info.Stops[order[i]]))
			break
		}
	}
	switch {
	case info.Submit >= 0 && !visited[info.Submit]:
		problems = append(problems, fmt.Sprintf("form %s: Tab never reaches its submit button %q", sel, info.Stops[info.Submit]))
	case info.Submit < 0 && !info.Implicit:
		problems = append(problems, fmt.Sprintf("form %s: no submit button and no field where Enter submits", sel))
	}
	// Shift+Tab from the last stop goes back to the one before.
	if len(order) >= 2 && len(problems) == 0 {
		lastStop := order[len(order)-1]
		if err := b.EvalJS(`(e => { e.focus(); return true; })(document.querySelector(`+jsString(sel)+` + ' [data-kb="`+fmt.Sprint(lastStop)+`"]'))`, new(bool)); err != nil {
			b.Fail("focus the last stop: %v", err)
		}
		b.Do("press Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
		var at int
		if err := b.EvalJS(activeStop+`(`+jsString(sel)+`)`, &at); err != nil {
			b.Fail("read the focus: %v", err)
		}
		if at == lastStop {
			problems = append(problems, fmt.Sprintf("form %s: Shift+Tab leaves the focus on %q", sel, info.Stops[lastStop]))
		}
	}
	return problems
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	return fmt.Sprintf("%q", s)
}
