package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// A form sent after its session ended (idle too long, or signed out in
// another tab) leads to sign-in and, once signed in, back to the page the
// form was on, where the draft is refilled (static/drafts.js); with two
// steps too. A Referer of another site, or of the sign-in page, is not
// followed.
func TestExpiredFormReturnsToItsPageAfterSignIn(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "Slow disk")
	page := "/tickets/" + tk.ID
	want := "/sign-in?next=" + url.QueryEscape(page) + "&notice=expired"

	b := e.signedIn("ada@example.com")
	// The long-text forms keep drafts (static/drafts.js).
	b.get("/tickets/new").expect(http.StatusOK).contains(`data-draft="ticket-new"`)
	b.get("/ssh-keys").expect(http.StatusOK).contains(`data-draft="ssh-key-new"`)
	b.get(page).expect(http.StatusOK).contains(`data-draft="ticket-comment-`+tk.ID+`"`, "/static/drafts.")
	e.clock.Advance(13 * time.Hour) // past the 12 h idle timeout
	b.header.Set("Referer", "http://example.com"+page)
	b.post(page+"/comments", url.Values{"comment": {"Still slow"}}).redirectsTo(want)
	b.get(want).expect(http.StatusOK).contains(`name="next" value="` + page + `"`)
	b.header.Del("Referer")
	b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}, "next": {page}}).redirectsTo(page)

	// Signed out in another tab; a boosted form names its page itself.
	other := e.signedIn("ada@example.com")
	other.post("/sign-out", nil).expect(http.StatusSeeOther)
	b = e.signedIn("ada@example.com")
	b.post("/sign-out", nil).expect(http.StatusSeeOther)
	b = e.signedIn("ada@example.com")
	b.get(page).expect(http.StatusOK)
	e.clock.Advance(13 * time.Hour)
	b.htmx = true
	b.header.Set("HX-Current-URL", "http://example.com"+page+"?tab=1")
	b.post(page+"/comments", url.Values{"comment": {"Still slow"}}).
		redirectsTo("/sign-in?next=" + url.QueryEscape(page+"?tab=1") + "&notice=expired")

	// Elsewhere is not followed.
	b = e.browser()
	for _, from := range []string{"https://evil.example/tickets", "http://example.com//evil.example/x", "http://example.com/sign-in?next=/x"} {
		b.cookies["cloudplane_session"] = "ended-elsewhere"
		b.header.Set("Referer", from)
		b.post(page+"/comments", url.Values{"comment": {"x"}}).redirectsTo("/sign-in?notice=expired")
	}
}

// Through the second step, the sign-in still returns to the form's page.
func TestExpiredFormReturnsThroughTheSecondStep(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	secret, _ := e.withTOTP(ada)
	tk := e.ticket(ada, "Slow disk")
	page := "/tickets/" + tk.ID

	b := e.browser()
	b.header.Set("Referer", "http://example.com"+page)
	b.cookies["cloudplane_session"] = "ended-elsewhere"
	b.post(page+"/comments", url.Values{"comment": {"Still slow"}}).
		redirectsTo("/sign-in?next=" + url.QueryEscape(page) + "&notice=expired")
	b.header.Del("Referer")
	b.get("/sign-in?next=" + url.QueryEscape(page))
	b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {password}, "next": {page}}).
		redirectsTo("/sign-in/second-factor")
	b.get("/sign-in/second-factor").expect(http.StatusOK)
	b.post("/sign-in/second-factor", url.Values{"code": {codeAt(t, secret, e.clock.Now())}}).redirectsTo(page)
}
