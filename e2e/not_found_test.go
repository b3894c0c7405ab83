package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// A link to an instance that is not there (a bookmark, a terminated
// instance of another account) says so in a customer's words and leads
// to the instances list, not only home.
func TestNotFoundPageLeadsToTheList(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.Open("/instances/0123456789abcdef0123456789abcdef")
	b.WaitText("main", "This instance doesn’t exist or was terminated|This instance doesn't exist or was terminated")
	b.Shot("instance not found")
	b.Do("follow the way on", chromedp.Click(b.Find("main", "a[href]", "^Your instances$")))
	b.WaitJS("the instances list", `location.pathname === "/instances"`)
	b.WaitText("main h1", "Instances")
}
