package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An owner adds two webhook endpoints from the dashboard, one for resolved
// tickets only; shows a signing secret again (just signed in, so within
// the re-authentication window: no password asked);
// rotates it through the confirmation dialog; and disables one endpoint,
// which leaves the other on.
func TestWebhookEndpoints(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("^Webhooks$")
	b.WaitText("main", "Set up a webhook")

	b.Fill("main", "^URL$", "https://hooks.example.com/all")
	b.Press("main", "^Add endpoint$")
	b.WaitText("main", "Your endpoint is set up")
	secret := strings.TrimSpace(b.Text("#webhook-secret"))
	if !strings.HasPrefix(secret, "whsec_") {
		b.Fail("the new endpoint's secret %q does not start with whsec_", secret)
	}
	b.Shot("first endpoint added")

	b.Fill("main", "^URL$", "https://hooks.example.com/resolved")
	for _, label := range []string{"^Ticket created", "^Ticket status changed"} {
		b.Do("untick "+label, chromedp.Click(b.Find("main form", "control", label)))
	}
	b.Press("main", "^Add endpoint$")
	b.WaitText("main", "Your endpoint is set up")
	if row := b.Text(b.RowWith("hooks.example.com/resolved")); strings.Contains(row, "Ticket created") || !strings.Contains(row, "Ticket resolved") {
		b.Fail("the resolved-only endpoint's row reads %q", row)
	}
	b.Shot("second endpoint added")

	b.Press(b.RowWith("hooks.example.com/all"), "hooks.example.com/all")
	b.WaitJS("the endpoint's page", `location.pathname.startsWith("/webhook/") && textMatches("main", "Reveal secret")`)
	var page string
	if err := b.EvalJS("location.pathname", &page); err != nil {
		b.Fail("read the location: %v", err)
	}
	b.Press("main", "^Reveal secret$")
	b.Press("main", "^Show secret$")
	b.WaitText("#webhook-secret", regexp.QuoteMeta(secret))
	b.Shot("secret revealed")

	b.Open(page)
	b.Press("main", "^Rotate secret$")
	b.WaitText("dialog[open]", "Rotate the signing secret")
	b.Shot("rotate dialog")
	b.Press("dialog[open]", "^Rotate secret$")
	b.WaitText("main", "Rotating: the previous secret also signs")
	if fresh := strings.TrimSpace(b.Text("#webhook-secret")); !strings.HasPrefix(fresh, "whsec_") || fresh == secret {
		b.Fail("the rotated secret %q", fresh)
	}
	b.Shot("secret rotated")

	b.Open(page)
	b.Press("main", "^Disable$")
	b.WaitText("main", "Endpoint disabled")
	b.Open("/webhook")
	if row := b.Text(b.RowWith("hooks.example.com/all")); !strings.Contains(row, "Disabled") {
		b.Fail("the disabled endpoint's row reads %q", row)
	}
	if row := b.Text(b.RowWith("hooks.example.com/resolved")); strings.Contains(row, "Disabled") {
		b.Fail("the other endpoint's row reads %q", row)
	}
	b.Shot("one endpoint disabled")
}
