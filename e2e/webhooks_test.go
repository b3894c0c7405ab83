package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An owner adds two webhook endpoints from the dashboard, one for resolved
// tickets only; shows a signing secret again after typing the password;
// rotates it through the confirmation dialog; and disables one endpoint,
// which leaves the other on.
func TestWebhookEndpoints(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.navTo("^Webhooks$")
	b.waitText("main", "Set up a webhook")

	b.fill("main", "^URL$", "https://hooks.example.com/all")
	b.press("main", "^Add endpoint$")
	b.waitText("main", "Your endpoint is set up")
	secret := strings.TrimSpace(b.text("#webhook-secret"))
	if !strings.HasPrefix(secret, "whsec_") {
		b.fail("the new endpoint's secret %q does not start with whsec_", secret)
	}
	b.shot("first endpoint added")

	b.fill("main", "^URL$", "https://hooks.example.com/resolved")
	for _, label := range []string{"^Ticket created", "^Ticket status changed"} {
		b.do("untick "+label, chromedp.Click(b.find("main form", "control", label)))
	}
	b.press("main", "^Add endpoint$")
	b.waitText("main", "Your endpoint is set up")
	if row := b.text(b.rowWith("hooks.example.com/resolved")); strings.Contains(row, "Ticket created") || !strings.Contains(row, "Ticket resolved") {
		b.fail("the resolved-only endpoint's row reads %q", row)
	}
	b.shot("second endpoint added")

	b.press(b.rowWith("hooks.example.com/all"), "hooks.example.com/all")
	b.waitJS("the endpoint's page", `location.pathname.startsWith("/webhook/") && textMatches("main", "Reveal secret")`)
	var page string
	if err := b.evalJS("location.pathname", &page); err != nil {
		b.fail("read the location: %v", err)
	}
	b.press("main", "^Reveal secret$")
	b.fill("main", "^Password$", o.password)
	b.press("main", "^Show secret$")
	b.waitText("#webhook-secret", regexp.QuoteMeta(secret))
	b.shot("secret revealed")

	b.open(page)
	b.press("main", "^Rotate secret$")
	b.waitText("dialog[open]", "Rotate the signing secret")
	b.shot("rotate dialog")
	b.press("dialog[open]", "^Rotate secret$")
	b.waitText("main", "Rotating: the previous secret also signs")
	if fresh := strings.TrimSpace(b.text("#webhook-secret")); !strings.HasPrefix(fresh, "whsec_") || fresh == secret {
		b.fail("the rotated secret %q", fresh)
	}
	b.shot("secret rotated")

	b.open(page)
	b.press("main", "^Disable$")
	b.waitText("main", "Endpoint disabled")
	b.open("/webhook")
	if row := b.text(b.rowWith("hooks.example.com/all")); !strings.Contains(row, "Disabled") {
		b.fail("the disabled endpoint's row reads %q", row)
	}
	if row := b.text(b.rowWith("hooks.example.com/resolved")); strings.Contains(row, "Disabled") {
		b.fail("the other endpoint's row reads %q", row)
	}
	b.shot("one endpoint disabled")
}
