package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"cloudplane/e2e/browser"
)

// The widths every page must fit without scrolling sideways: a laptop and
// a phone.
var widths = []struct{ w, h int64 }{{browser.ViewWidth, browser.ViewHeight}, {390, 844}}

// No dashboard page scrolls sideways at 1280 or 390 CSS pixels, as an
// owner or as support staff, with long values (a long email, names,
// subjects, URLs) in them: every page reachable by the links of the pages
// signed in, one of each route, is loaded, measured and saved as a
// screenshot at both widths.
func TestNoPageScrollsSideways(t *testing.T) {
	s := need(t)
	b, sb, o, staff := s.longValuePages(t)
	problems := b.crawlWidths("owner")
	b.emailOnOneLine(o.email)
	problems = append(problems, sb.crawlWidths("support")...)
	sb.emailOnOneLine(staff.email)
	for _, p := range problems {
		t.Error(p)
	}
}

// longValuePages makes an owner whose account holds one of each object
// with long values (a long email, names, subjects, URLs) and a support
// user with a long email, each signed in in a tab of their own.
func (s *suite) longValuePages(t *testing.T) (ownerTab, staffTab *tab, o, staff owner) {
	t.Helper()
	s.firstOwner(t)
	n := owners.Add(1)
	o = owner{email: fmt.Sprintf("a-rather-long-mailbox-name-for-layout-checks-%d@engineering.example-company.com", n), password: password}
	s.cli(t, "users", "create", "--email", o.email, "--password", o.password)
	key := s.apiKey(t, o)
	long := "a-long-name-without-any-spaces-to-break-it-" + strings.Repeat("x", 21)
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]any{"name": long}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/instance-operations/launch", map[string]any{"region_name": "us-east-1",
		"instance_type_name": "gpu_1x_a10", "ssh_key_names": []string{long}, "name": long}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/filesystems", map[string]any{"name": "fs-" + long[:40], "region": "us-east-1"}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{"subject": "Subject " + long, "type": "service_request",
		"description": "A description with a long word: " + long + strings.Repeat(" and then some words", 20)}).ok(t, http.StatusOK, nil)

	ownerTab = s.newTab(t)
	ownerTab.signIn(o)
	ownerTab.Open("/webhook")
	ownerTab.Fill("main", "^URL$", "https://hooks.example.com/"+long+"/"+long)
	ownerTab.Press("main", "^Add endpoint$")
	ownerTab.WaitText("main", "Your endpoint is set up")
	s.api(t, key, http.MethodPost, "/tickets", map[string]string{"subject": "Another " + long, "type": "service_request",
		"description": "For a webhook delivery."}).ok(t, http.StatusOK, nil)

	staff = owner{email: fmt.Sprintf("a-rather-long-support-agent-name-%d@support.example-company.com", n), password: password}
	s.cli(t, "users", "create", "--email", staff.email, "--password", staff.password, "--role", "support")
	staffTab = s.newTab(t)
	staffTab.signIn(staff)
	return ownerTab, staffTab, o, staff
}

// skipPath are links that are not pages to look at: they sign out, start
// a sign-in elsewhere, or download.
var skipPath = regexp.MustCompile(`^/(sign-out|static/|sso/)|/(download|export|connect)(/|$)`)

// idSegment is a path segment that names one object; pages are visited
// once per route, whatever the object.
var idSegment = regexp.MustCompile(`/[^/]*[0-9][^/]*`)

// eachPage visits the pages linked from the overview, and from them, one
// per route (at most 80), calling visit on each page once it has loaded
// at 1280 px; visit may change the viewport, which is reset after it.
func (b *tab) eachPage(who string, visit func(path, route string)) {
	b.T.Helper()
	seen := map[string]bool{}
	queue := []string{"/"}
	for len(queue) > 0 && len(seen) < 80 {
		path := queue[0]
		queue = queue[1:]
		route := idSegment.ReplaceAllString(path, "/:id")
		if seen[route] {
			continue
		}
		seen[route] = true
		b.Open(path)
		b.Settled()
		visit(path, route)
		b.Do("reset the viewport", chromedp.EmulateViewport(browser.ViewWidth, browser.ViewHeight))
		var links []string
		if err := b.EvalJS(`Array.from(document.querySelectorAll("a[href^='/']")).map(a => a.getAttribute("href").split(/[?#]/)[0])`, &links); err != nil {
			b.Fail("read the links of %s: %v", path, err)
		}
		for _, l := range links {
			if !skipPath.MatchString(l) && !seen[idSegment.ReplaceAllString(l, "/:id")] {
				queue = append(queue, l)
			}
		}
	}
	if len(seen) < 10 {
		b.Fail("as %s only %d pages were reached: %v", who, len(seen), seen)
	}
	b.T.Logf("as %s, %d pages visited", who, len(seen))
}

// crawlWidths visits every page (eachPage) and returns what scrolls
// sideways at which width, saving a screenshot of each page at each width.
func (b *tab) crawlWidths(who string) []string {
	b.T.Helper()
	var problems []string
	b.eachPage(who, func(path, route string) {
		for _, w := range widths {
			b.Do(fmt.Sprintf("set the viewport to %d", w.w), chromedp.EmulateViewport(w.w, w.h))
			var got struct {
				Scroll, Client int
				Wide, Boxes    []string
			}
			b.WaitValue("the page's widths", `(() => {
  const s = document.scrollingElement, wide = [];
  if (s.scrollWidth > s.clientWidth) {
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > s.clientWidth + 1 && r.width > 0 && wide.length < 6)
        wide.push(el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ").join(".") : "") + " " + Math.round(r.width) + "px: " + (el.textContent || "").trim().slice(0, 50));
    }
  }
  const boxes = [];
  for (const el of document.querySelectorAll("main :not(pre)")) {
    const o = getComputedStyle(el).overflowX;
    if ((o === "auto" || o === "scroll") && el.scrollWidth > el.clientWidth + 1) {
      const cells = Array.from(el.querySelectorAll("tr:first-child > *")).map(c => Math.round(c.getBoundingClientRect().width) + "px " + (c.dataset.label || c.textContent.trim().slice(0, 20)));
      boxes.push(el.tagName.toLowerCase() + "." + String(el.className).split(" ").join(".") + " " + el.scrollWidth + " in " + el.clientWidth + " (" + cells.join(", ") + ")");
    }
  }
  return {Scroll: s.scrollWidth, Client: s.clientWidth, Wide: wide, Boxes: boxes};
})()`, &got)
			if len(got.Boxes) > 0 {
				problems = append(problems, fmt.Sprintf("as %s, %s at %d px has a box that scrolls sideways (its content cut off): %s",
					who, path, w.w, strings.Join(got.Boxes, " | ")))
			}
			if got.Scroll > got.Client {
				problems = append(problems, fmt.Sprintf("as %s, %s at %d px scrolls sideways: %d px wide in %d; widest: %s",
					who, path, w.w, got.Scroll, got.Client, strings.Join(got.Wide, " | ")))
			}
			b.Shot(fmt.Sprintf("%s %s at %d", who, route, w.w))
		}
	})
	return problems
}

// emailOnOneLine checks that the header names the signed-in user's long
// email on one line (cut with an ellipsis, never broken mid-word), with
// the whole address in its tooltip and its text.
func (b *tab) emailOnOneLine(email string) {
	b.T.Helper()
	b.Open("/")
	var got struct {
		Found      bool
		Tops       int
		Title      string
		Text       string
		Overflowed bool
	}
	b.WaitValue("the header's email", `(() => {
  const el = Array.from(document.querySelectorAll("#site-header *")).find(e => e.children.length <= 3 && e.textContent.trim() === `+browser.JS(email)+`);
  if (!el) return {Found: false};
  const r = document.createRange(); r.selectNodeContents(el);
  const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
  return {Found: true, Tops: tops.size, Title: el.title, Text: el.textContent.trim(), Overflowed: el.scrollWidth > el.clientWidth};
})()`, &got)
	if !got.Found || got.Tops != 1 || got.Title != email || got.Text != email {
		b.Fail("the header shows %s on %d lines (title %q, text %q); want one line with the whole address in the title and the text", email, got.Tops, got.Title, got.Text)
	}
	b.T.Logf("%s: cut with an ellipsis: %v", email, got.Overflowed)
}
