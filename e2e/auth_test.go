package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"sync"
	"testing"
)

// setup is the first-run setup, done once by whichever test needs it
// first: the link works only while no user exists, and every other test
// creates users. nav is the header's navigation as an owner sees it.
var setup struct {
	once  sync.Once
	done  bool
	owner owner
	nav   []navLink
}

// navLink is a link of the header's navigation.
type navLink struct{ Name, Href string }

// firstOwner returns the owner created through the setup link, doing the
// setup in the browser the first time.
func (s *suite) firstOwner(t *testing.T) owner {
	t.Helper()
	setup.once.Do(func() {
		setup.owner, setup.nav = s.completeSetup(t) // may end the test, leaving done false
		setup.done = true
	})
	if !setup.done {
		t.Fatal(errSetupNotDone)
	}
	return setup.owner
}

// completeSetup opens the link the server logged, is refused a short
// password beside its field, then creates the first owner and lands on
// the overview signed in.
func (s *suite) completeSetup(t *testing.T) (owner, []navLink) {
	t.Helper()
	o := owner{email: "first-owner@example.com", password: password}
	b := s.newTab(t)
	b.Label = "first-run-setup" // whichever test runs it
	link, err := url.Parse(s.setup)
	if err != nil {
		t.Fatalf("setup link %q: %v", s.setup, err)
	}
	if status := b.Open(link.Path); status != http.StatusOK {
		b.Fail("the setup link answered %d, want 200", status)
	}
	b.WaitText("main h1", "^Welcome to cloudplane$")
	b.Shot("setup form")

	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", "short")
	b.Fill("main", "^Confirm password$", "short")
	b.Press("main", "^Create account$")
	b.WantFieldError("main", "^Password$", "at least 10 characters")
	b.Shot("setup short password")

	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", o.password)
	b.Fill("main", "^Confirm password$", o.password)
	b.Press("main", "^Create account$")
	b.WaitText("#flash", "Your account is ready")
	b.WaitText("#site-header", regexp.QuoteMeta(o.email))
	b.WaitText("main h1", "^Overview$")
	b.Shot("overview after setup")
	var nav []navLink
	if err := b.EvalJS(`Array.from(document.querySelectorAll("#site-header nav a[href]")).
		map(a => ({Name: nameOf(a), Href: a.getAttribute("href")}))`, &nav); err != nil {
		b.Fail("read the navigation: %v", err)
	}
	return o, nav
}

func TestFirstRunSetup(t *testing.T) {
	s := need(t)
	s.firstOwner(t)

	b := s.newTab(t)
	link, _ := url.Parse(s.setup)
	if status := b.Open(link.Path); status != http.StatusNotFound {
		b.Fail("the used setup link answered %d, want 404", status)
	}
	b.WaitText("main", "invalid or has already been used")
	b.Shot("setup link used")
}

func TestSignInAndOut(t *testing.T) {
	s := need(t)
	o := s.firstOwner(t)
	b := s.newTab(t)

	// A page that needs a session sends the visitor to sign in first and
	// back afterwards.
	b.Open("/api-keys")
	b.WaitJS("the sign-in page", `location.pathname === "/sign-in" && new URLSearchParams(location.search).get("next") === "/api-keys"`)
	b.Shot("sign-in form")

	b.Fill("main", "^Email$", o.email)
	b.Fill("main", "^Password$", "not the password")
	b.Press("main", "^Sign in$")
	b.WaitText("main [role=alert]", "The email or password is incorrect")
	var kept string
	if err := b.EvalJS(`document.querySelector("main input[type=password]").value`, &kept); err != nil || kept != "" {
		b.Fail("the refused password is given back in the form (%q, %v)", kept, err)
	}
	b.Shot("wrong password")

	b.Fill("main", "^Password$", o.password)
	b.Press("main", "^Sign in$")
	b.WaitText("#site-header", regexp.QuoteMeta(o.email))
	b.WaitJS("the page asked for before signing in", `location.pathname === "/api-keys"`)
	b.WaitText("main h1", "^API keys$")
	b.Shot("signed in")

	b.Ready()
	b.Press("#site-header", "^Sign out$")
	b.WaitText("main", "You have signed out")
	b.WaitJS("the header without a user", `!/Sign out/.test(document.getElementById("site-header").innerText)`)
	b.Shot("signed out")

	b.Open("/")
	b.WaitJS("the sign-in page", `location.pathname === "/sign-in"`)
}
