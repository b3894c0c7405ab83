package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// pageOrSkip skips the test while a page other branches are building is
// not there: the owner's header has no nav link named by nav (a regular
// expression, case-insensitive) and none of the page's likely routes
// answers. It checks before the test creates anything, so a skip costs
// little. A route that answers without a nav link fails the test, since
// every page is hooked into the nav.
func (s *suite) pageOrSkip(t *testing.T, what, nav string, routes ...string) {
	t.Helper()
	s.firstOwner(t)
	re := regexp.MustCompile("(?i)" + nav)
	for _, l := range setup.nav {
		if re.MatchString(l.Name) {
			return
		}
	}
	for _, r := range routes {
		if status := s.statusOf(t, r); status != http.StatusNotFound {
			t.Fatalf("the %s page answers %d at %s, but the header has no nav link named /%s/", what, status, r, nav)
		}
	}
	t.Skipf("%s page not present yet: no nav link named /%s/ and %s answer 404; this flow runs once the page is merged",
		what, nav, strings.Join(routes, ", "))
}

// onPage is the start of a flow on a page that may not exist yet: it
// skips while the page is missing, else signs a new owner in and follows
// the nav link to the page.
func (s *suite) onPage(t *testing.T, what, nav string, routes ...string) (owner, *tab) {
	t.Helper()
	s.pageOrSkip(t, what, nav, routes...)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.navTo(nav)
	return o, b
}

// statusOf is the status of a page for a visitor, redirects not followed:
// a page that exists sends a visitor to sign in, one that does not is 404.
func (s *suite) statusOf(t *testing.T, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}
