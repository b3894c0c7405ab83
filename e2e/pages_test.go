package e2e

import "testing"

// onPage is the start of a flow on one of the dashboard's pages: a new
// owner signs in and follows the header's nav link named by nav (a
// regular expression) to the page. A page missing from the nav fails the
// flow: every page the route table serves is tested.
func (s *suite) onPage(t *testing.T, nav string) (owner, *tab) {
	t.Helper()
	s.firstOwner(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo(nav)
	return o, b
}
