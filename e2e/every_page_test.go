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
  // Shown: laid out, visible, not inert, not hidden from assistive
  // technology (a form's hidden default button), and not in a closed
  // <details> (whose content Chromium lays out yet does not render).
  const shown = e => e.getClientRects().length > 0 && e.checkVisibility({visibilityProperty: true}) &&
    !e.closest("[inert],[aria-hidden=true]") && !(e.closest("details:not([open])") && !e.closest("details:not([open]) > summary"));
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
  const segmented = stops.map((_, i) => form.querySelector('[data-kb="' + i + '"]').matches("input[type=date],input[type=time],input[type=datetime-local],input[type=month],input[type=week]"));
  return {stops, submit, implicit, segmented};
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
		Stops     []string
		Submit    int
		Implicit  bool
		Segmented []bool // a date or time field, whose parts Tab visits in turn
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
	last, entered, stay := -3, false, 0
	for range len(info.Stops)*3 + 20 {
		b.Do("press Tab", chromedp.KeyEvent(kb.Tab))
		var at int
		if err := b.EvalJS(activeStop+`(`+jsString(sel)+`)`, &at); err != nil {
			b.Fail("read the focus: %v", err)
		}
		if at == -2 && entered {
			break
		}
		if at >= 0 && at == last {
			// A date or time field keeps the focus while Tab goes through
			// its parts (at most year, month, day, hours, minutes, seconds,
			// AM/PM); anything else that keeps it is a trap.
			if stay++; !info.Segmented[at] || stay > 7 {
				problems = append(problems, fmt.Sprintf("form %s: the focus stays on %q when Tab is pressed: a keyboard trap", sel, info.Stops[at]))
				break
			}
			continue
		}
		stay = 0
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

// activeControl is the focused element: its tag, type, name and text.
type activeControl struct{ Tag, Type, Name, Text string }

func (b *tab) active() activeControl {
	b.T.Helper()
	var a activeControl
	if err := b.EvalJS(`(e => ({Tag: e.tagName, Type: e.type || "", Name: e.name || "", Text: (e.textContent || "").trim().slice(0, 40)}))(document.activeElement)`, &a); err != nil {
		b.Fail("read the focus: %v", err)
	}
	return a
}

// tabUntil presses Tab until the focused control passes want, failing
// after limit presses.
func (b *tab) tabUntil(what string, want func(activeControl) bool, limit int) {
	b.T.Helper()
	for range limit {
		b.Do("press Tab", chromedp.KeyEvent(kb.Tab))
		if want(b.active()) {
			return
		}
	}
	b.Fail("%d Tab presses did not reach %s (the focus is on %+v)", limit, what, b.active())
}

func named(name string) func(activeControl) bool {
	return func(a activeControl) bool { return a.Name == name }
}

func button(text string) func(activeControl) bool {
	return func(a activeControl) bool { return a.Tag == "BUTTON" && a.Text == text }
}

// Representative forms are completed with key presses alone: an owner
// opens an incident (the subject typed, the type chosen with Space, the
// severity with the arrow keys, Enter on the button), and support sends
// an internal note from the composer (the kind switched with an arrow
// key).
func TestKeyboardCompletesForms(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.Open("/tickets/new")
	b.Settled()
	if a := b.active(); a.Name != "subject" {
		b.Fail("the new-ticket form opens with the focus on %+v, want the subject", a)
	}
	b.Do("type the subject", chromedp.KeyEvent("Keyboard only incident"))
	b.tabUntil("the ticket's type", named("type"), 5)
	b.Do("choose the type", chromedp.KeyEvent(" "))
	var typ string
	if err := b.EvalJS(`(document.querySelector("input[name=type]:checked") || {}).value || ""`, &typ); err != nil || typ == "" {
		b.Fail("Space chose no type (%v)", err)
	}
	if typ == "incident" {
		b.tabUntil("the severity", named("severity"), 5)
		b.Do("choose a severity", chromedp.KeyEvent(kb.ArrowDown))
	}
	b.tabUntil("the description", named("description"), 5)
	b.Do("type the description", chromedp.KeyEvent("Typed without a mouse."))
	b.tabUntil("the Open ticket button", button("Open ticket"), 5)
	b.Do("press Enter", chromedp.KeyEvent(kb.Enter))
	b.WaitText("#flash", "Ticket opened")
	b.Shot("ticket opened from the keyboard")
	var ticketPath string
	if err := b.EvalJS(`location.pathname`, &ticketPath); err != nil {
		b.Fail("read the address: %v", err)
	}

	help := owner{email: fmt.Sprintf("kb-help-%d@example.com", owners.Add(1)), password: password}
	s.cli(t, "users", "create", "--email", help.email, "--password", help.password, "--role", "support")
	sb := s.newTab(t)
	sb.signIn(help)
	sb.Open(ticketPath)
	sb.Settled()
	if err := sb.EvalJS(`(e => (e.setAttribute("tabindex", "-1"), e.focus(), true))(document.querySelector("#composer"))`, new(bool)); err != nil {
		sb.Fail("start before the composer: %v", err)
	}
	sb.tabUntil("the composer's kind", named("kind"), 5)
	sb.Do("switch to Internal note", chromedp.KeyEvent(kb.ArrowDown))
	var kind string
	if err := sb.EvalJS(`document.querySelector("#composer input[name=kind]:checked").value`, &kind); err != nil || kind != "note" {
		sb.Fail("the arrow key chose %q (%v), want note", kind, err)
	}
	sb.tabUntil("the message", named("body"), 5)
	sb.Do("type the note", chromedp.KeyEvent("Checked from the keyboard."))
	sb.tabUntil("the Send button", button("Send"), 5)
	sb.Do("press Enter", chromedp.KeyEvent(kb.Enter))
	sb.WaitText("#flash", "Internal note added")
	sb.WaitText("main", "Checked from the keyboard.")
	sb.Shot("note sent from the keyboard")
}
