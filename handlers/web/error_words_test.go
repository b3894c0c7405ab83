package web_test

import (
	"net/http"
	"testing"
)

// A page for an object that is not there says what may have become of
// it in a customer's words, and leads to the list it would be in; the
// developer's message ("instance \"…\" does not exist") is not shown.
func TestNotFoundPageLeadsToTheList(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	const missing = "0123456789abcdef0123456789abcdef"
	for _, c := range []struct{ path, text, list, label string }{
		{"/instances/" + missing, "This instance doesn&#39;t exist or was terminated.", "/instances", "Your instances"},
		{"/tickets/" + missing, "This support ticket doesn&#39;t exist, or belongs to another account.", "/tickets", "Support tickets"},
		{"/webhook/" + missing, "This webhook doesn&#39;t exist or was deleted.", "/webhook", "Your webhooks"},
		{"/firewall/rulesets/" + missing, "This firewall ruleset doesn&#39;t exist or was deleted.", "/firewall/rulesets", "Firewall rulesets"},
	} {
		b.get(c.path).expect(http.StatusNotFound).
			contains(c.text, `<a class="button button-primary" href="`+c.list+`">`+c.label+`</a>`,
				`<a class="button button-secondary" href="/">Go to the home page</a>`).
			lacks("does not exist", missing)
	}
	b.get("/no-such-page").expect(http.StatusNotFound).
		contains("There is no page at this address.", `<a class="button button-primary" href="/">Go to the home page</a>`)
}
