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
	b.label = "first-run-setup" // whichever test runs it
	link, err := url.Parse(s.setup)
	if err != nil {
		t.Fatalf("setup link %q: %v", s.setup, err)
	}
	if status := b.open(link.Path); status != http.StatusOK {
		b.fail("the setup link answered %d, want 200", status)
	}
	b.waitText("main h1", "^Welcome to cloudplane$")
	b.shot("setup form")

	b.fill("main", "^Email$", o.email)
	b.fill("main", "^Password$", "short")
	b.fill("main", "^Confirm password$", "short")
	b.press("main", "^Create account$")
	b.wantFieldError("main", "^Password$", "at least 10 characters")
	b.shot("setup short password")

	b.fill("main", "^Email$", o.email)
	b.fill("main", "^Password$", o.password)
	b.fill("main", "^Confirm password$", o.password)
	b.press("main", "^Create account$")
	b.waitText("#flash", "Your account is ready")
	b.waitText("#site-header", regexp.QuoteMeta(o.email))
	b.waitText("main h1", "^Overview$")
	b.shot("overview after setup")
	var nav []navLink
	if err := b.evalJS(`Array.from(document.querySelectorAll("#site-header nav a[href]")).
		map(a => ({Name: nameOf(a), Href: a.getAttribute("href")}))`, &nav); err != nil {
		b.fail("read the navigation: %v", err)
	}
	return o, nav
}

func TestFirstRunSetup(t *testing.T) {
	s := need(t)
	s.firstOwner(t)

	b := s.newTab(t)
	link, _ := url.Parse(s.setup)
	if status := b.open(link.Path); status != http.StatusNotFound {
		b.fail("the used setup link answered %d, want 404", status)
	}
	b.waitText("main", "invalid or has already been used")
	b.shot("setup link used")
}

func TestSignInAndOut(t *testing.T) {
	s := need(t)
	o := s.firstOwner(t)
	b := s.newTab(t)

	// A page that needs a session sends the visitor to sign in first and
	// back afterwards.
	b.open("/api-keys")
	b.waitJS("the sign-in page", `location.pathname === "/sign-in" && new URLSearchParams(location.search).get("next") === "/api-keys"`)
	b.shot("sign-in form")

	b.fill("main", "^Email$", o.email)
	b.fill("main", "^Password$", "not the password")
	b.press("main", "^Sign in$")
	b.waitText("main [role=alert]", "The email or password is incorrect")
	var kept string
	if err := b.evalJS(`document.querySelector("main input[type=password]").value`, &kept); err != nil || kept != "" {
		b.fail("the refused password is given back in the form (%q, %v)", kept, err)
	}
	b.shot("wrong password")

	b.fill("main", "^Password$", o.password)
	b.press("main", "^Sign in$")
	b.waitText("#site-header", regexp.QuoteMeta(o.email))
	b.waitJS("the page asked for before signing in", `location.pathname === "/api-keys"`)
	b.waitText("main h1", "^API keys$")
	b.shot("signed in")

	b.ready()
	b.press("#site-header", "^Sign out$")
	b.waitText("main", "You have signed out")
	b.waitJS("the header without a user", `!/Sign out/.test(document.getElementById("site-header").innerText)`)
	b.shot("signed out")

	b.open("/")
	b.waitJS("the sign-in page", `location.pathname === "/sign-in"`)
}
