package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"cloudplane/models"
)

// attackText are values the domain's text rule refuses: NUL (a 500 on
// PostgreSQL before the rule), another control character, and invalid
// UTF-8, which a form (unlike JSON) can carry as it is.
var attackText = []string{"a\x00b@example.com", "a\x1bb@example.com", "a\xffb@example.com"}

// refusedBeside checks that the page shows a text-rule message beside the
// field.
func (p *page) refusedBeside(field string) *page {
	p.t.Helper()
	p.expect(http.StatusUnprocessableEntity)
	re := regexp.MustCompile(`id="field-` + regexp.QuoteMeta(field) + `-error">[^<]*(control characters|valid UTF-8)`)
	if !re.MatchString(p.Body) {
		p.t.Fatalf("no text-rule message beside %s; body:\n%s", field, p.Body)
	}
	return p
}

// TestFormsRefuseControlCharacters posts the attack values through the
// dashboard's text inputs, signed out (sign-in), as an owner (API key
// name, a ticket and a comment) and as support staff (the queue's and the
// delivery log's filters): each is a message beside the field, on SQLite
// and PostgreSQL alike, and nothing is written.
func TestFormsRefuseControlCharacters(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "GPU slow")
	owner := e.signedIn("ada@example.com")
	staff := e.signedIn("help@example.com")
	before := len(e.events(ada, 1000))
	for _, v := range attackText {
		e.browser().signIn(v, password).refusedBeside("email")
		owner.post("/api-keys", url.Values{"name": {v}}).refusedBeside("name")
		owner.post("/tickets", url.Values{"subject": {v}, "description": {"d"}, "type": {"service_request"}}).refusedBeside("subject")
		owner.post("/tickets", url.Values{"subject": {"s"}, "description": {v}, "type": {"service_request"}}).refusedBeside("description")
		owner.post("/tickets/"+tk.ID+"/comments", url.Values{"body": {v}}).expect(http.StatusUnprocessableEntity)
		staff.get("/tickets?" + url.Values{"account": {v}}.Encode()).refusedBeside("account")
		staff.get("/webhook-deliveries?" + url.Values{"ticket": {v}}.Encode()).expect(http.StatusUnprocessableEntity)
	}
	if after := len(e.events(ada, 1000)); after != before {
		t.Fatalf("refused forms wrote %d audit events", after-before)
	}
}
