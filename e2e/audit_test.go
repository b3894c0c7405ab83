package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

const (
	// loadMore names the audit page's control for the next page.
	loadMore = "^(load|show) more|older"
	// moreKinds are the elements that control may be.
	moreKinds = "a[href],button,[hx-get]"
	// eventRowsJS counts the events shown: table rows, else list items,
	// leaving out a row that only holds the "load more" control.
	eventRowsJS = `(() => {
  const rows = Array.from(document.querySelectorAll("main tbody tr"));
  const items = rows.length ? rows : Array.from(document.querySelectorAll("main li"));
  return items.filter(r => shown(r) && !/(load|show) more|older/i.test(r.innerText)).length;
})()`
)

// The audit page shows a page of events and "load more" appends the
// rest until every event the API has is shown once.
func TestAuditEventsLoadMore(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "audit|activity|events")
	var path string
	if err := b.EvalJS("location.pathname", &path); err != nil {
		b.Fail("read the location: %v", err)
	}
	b.Shot("audit log")

	// More events than a page holds, whatever the page size (up to 500):
	// each update of the global ruleset is one event.
	key := s.apiKey(t, o)
	for generated := 0; !b.Has("main", moreKinds, loadMore); generated += 100 {
		if generated >= 500 {
			b.Fail("after %d events the audit page still offers no %q control", generated, loadMore)
		}
		for i := range 100 {
			rule := firewallRule{Protocol: "tcp", PortRange: []int{22, 22}, SourceNetwork: "0.0.0.0/0",
				Description: fmt.Sprintf("e2e audit %d", generated+i)}
			s.api(t, key, http.MethodPatch, "/firewall-rulesets/global",
				map[string]any{"rules": []firewallRule{rule}}).ok(t, http.StatusOK, nil)
		}
		b.Open(path)
	}
	b.Shot("audit log first page")

	for pages := 1; b.Has("main", moreKinds, loadMore); pages++ {
		if pages > 20 {
			b.Fail("still offered %q after 20 pages", loadMore)
		}
		var before int
		if err := b.EvalJS(eventRowsJS, &before); err != nil {
			b.Fail("count the events shown: %v", err)
		}
		b.Do("load more events", chromedp.Click(b.Find("main", moreKinds, loadMore)))
		b.WaitJS("more events to be shown", fmt.Sprintf("%s > %d", eventRowsJS, before))
		b.Settled()
		if pages == 1 {
			b.Shot("audit log after load more")
		}
	}

	var shown int
	if err := b.EvalJS(eventRowsJS, &shown); err != nil {
		b.Fail("count the events shown: %v", err)
	}
	if want := s.auditEventCount(t, key); shown != want {
		b.Fail("the audit page shows %d events after loading them all, the API has %d", shown, want)
	}
	b.Shot("audit log all loaded")
}
