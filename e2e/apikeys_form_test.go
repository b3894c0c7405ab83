package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The API key form shows the expiry date only for "On a date", lines its
// fields up, and after generating offers "Try it" commands that export
// the key first, each with a Copy button.
func TestAPIKeyFormExpiryAndTryIt(t *testing.T) {
	s := need(t)
	_, b := s.onPage(t, "^API keys$")
	dateShown := `(el => !!el && el.getClientRects().length > 0 && !el.disabled)(document.querySelector('input[name="expires_on"]'))`
	var shown bool
	if err := b.EvalJS(dateShown, &shown); err != nil || shown {
		b.Fail("the expiry date shows with Never (%v)", err)
	}
	// Labels, and controls, start on one line whatever the length of
	// their hints.
	var tops struct{ Labels, Controls []float64 }
	if err := b.EvalJS(`(f => ({
		labels: ["name", "scope", "expires"].map(n => f.querySelector('label[for="field-' + n + '"]').getBoundingClientRect().top),
		controls: ["name", "scope", "expires"].map(n => f.querySelector('[name="' + n + '"]').getBoundingClientRect().top),
	}))(document.querySelector('form[action="/api-keys"]'))`, &tops); err != nil {
		b.Fail("measure the form: %v", err)
	}
	for i := 1; i < 3; i++ {
		if tops.Labels[i] != tops.Labels[0] || tops.Controls[i] != tops.Controls[0] {
			b.Fail("the fields are not aligned: label tops %v, control tops %v", tops.Labels, tops.Controls)
		}
	}
	b.Choose("main", "^expires$", "^on a date$")
	b.WaitJS("the expiry date to show", dateShown)
	b.Shot("api key form on a date")
	b.Choose("main", "^expires$", "^never$")
	b.WaitJS("the expiry date to hide", "!"+dateShown)

	b.Fill("main", "^Name$", "e2e try")
	b.Choose("main", "^access$", "^read-only$")
	b.Press("main", "^Generate key$")
	secret := strings.TrimSpace(b.Text("#new-key-secret"))
	try := b.Text("#new-key-try")
	if want := fmt.Sprintf("export CLOUDPLANE_API_KEY=%s\ncurl ", secret); !strings.HasPrefix(try, want) {
		b.Fail("Try it reads %q, want it to start with %q", try, want)
	}
	if n := len(b.FindAll("main .secret-panel", "clickable", "^copy")); n != 2 {
		b.Fail("%d Copy buttons beside the secret and the commands, want 2", n)
	}
	b.Press("main .secret-panel", "^copy the commands$")
	b.WaitText("#new-key-try-status", "copied|selected")
	b.Shot("api key try it")
}
