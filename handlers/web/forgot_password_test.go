package web_test

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	mailer "cloudplane/webhooks/mail"
	"cloudplane/webhooks/mail/mailtest"
)

const mailBase = "https://console.example.com"

// mailbox runs a mail worker for e's store that sends to a real SMTP
// server, until the test ends.
func (e *env) mailbox() *mailtest.Server {
	e.t.Helper()
	srv := mailtest.Start(e.t, mailtest.Options{})
	s, err := mailer.ParseSMTP("smtp://"+srv.Addr, "cloudplane <noreply@example.com>")
	if err != nil {
		e.t.Fatal(err)
	}
	s.TLS = &tls.Config{RootCAs: srv.CA}
	w := mailer.New(mailer.Config{Store: e.store, Sender: s, BaseURL: mailBase, Poll: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	e.store.OnMail(w.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	e.t.Cleanup(func() { cancel(); <-done })
	return srv
}

// mailTo waits for the n-th message to `to` and returns the path of its
// first link to pathPrefix.
func mailTo(t *testing.T, srv *mailtest.Server, to string, n int, pathPrefix string) (mailtest.Message, string) {
	t.Helper()
	var got []mailtest.Message
	testserver.Eventually(t, 10*time.Second, func() bool {
		got = nil
		for _, m := range srv.Messages() {
			if m.To[0] == to {
				got = append(got, m)
			}
		}
		return len(got) >= n
	}, "mail to "+to)
	m := got[n-1]
	body := strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(m.Data)
	link := regexp.MustCompile(regexp.QuoteMeta(mailBase+pathPrefix) + `[0-9a-f]{64}`).FindString(body)
	return m, strings.TrimPrefix(link, mailBase)
}

// The whole self-service reset: the sign-in page links to the form; a
// request for an existing email and one for an unknown email get the same
// page and status; the mail arrives with a link that opens the reset
// form; the new password works, the old one does not, every earlier
// session has ended, and the link works once.
func TestForgotPasswordFlow(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	old := e.signedIn("ada@example.com")

	b := e.browser()
	b.get("/sign-in").expect(http.StatusOK).contains(`href="/forgot-password"`)
	b.get("/forgot-password").expect(http.StatusOK).contains("Forgot your password?", `name="email"`)
	known := b.post("/forgot-password", url.Values{"email": {"ada@example.com"}}).expect(http.StatusOK)
	unknown := e.browser()
	unknown.get("/forgot-password")
	other := unknown.post("/forgot-password", url.Values{"email": {"nobody@example.com"}}).expect(http.StatusOK)
	if strip(known.Body) != strip(other.Body) {
		t.Errorf("the answers differ:\n%s\n%s", strip(known.Body), strip(other.Body))
	}
	known.contains("If an account uses that address")

	m, link := mailTo(t, srv, "ada@example.com", 1, "/reset-password/")
	if link == "" {
		t.Fatalf("no reset link in:\n%s", m.Data)
	}
	const newPassword = "a brand new passphrase"
	r := e.browser()
	r.get(link).expect(http.StatusOK).contains("Choose a new password", "ada@example.com")
	r.post(link, url.Values{"password": {newPassword}, "password_confirm": {newPassword}}).redirectsTo("/")
	r.get("/").expect(http.StatusOK)
	old.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	e.browser().signIn("ada@example.com", password).expect(http.StatusUnprocessableEntity)
	e.browser().signIn("ada@example.com", newPassword).expect(http.StatusSeeOther)
	e.browser().get(link).expect(http.StatusNotFound)
	// The request for nobody was queued like ada's and dropped by the
	// worker, unsent.
	testserver.Eventually(t, 5*time.Second, func() bool {
		l, err := e.store.MailLog(context.Background(), models.OperatorActor, models.MailFailed, "")
		return err == nil && len(l) == 1 && l[0].Recipient == "nobody@example.com"
	}, "the unknown address's request dropped")
	for _, m := range srv.Messages() {
		if m.To[0] != "ada@example.com" {
			t.Errorf("mail to %v", m.To)
		}
	}
}

// strip removes what differs between any two page loads (CSRF tokens).
func strip(body string) string {
	return regexp.MustCompile(`[0-9a-f]{64}`).ReplaceAllString(body, "")
}

// The link sent by mail works for an hour.
func TestForgotPasswordLinkExpiresInAnHour(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	b := e.browser()
	b.get("/forgot-password")
	b.post("/forgot-password", url.Values{"email": {"ada@example.com"}}).expect(http.StatusOK)
	_, link := mailTo(t, srv, "ada@example.com", 1, "/reset-password/")
	e.clock.Advance(models.SelfServiceResetTTL - time.Second)
	e.browser().get(link).expect(http.StatusOK)
	e.clock.Advance(time.Second)
	e.browser().get(link).expect(http.StatusNotFound)
}

// Requests are throttled per email (whatever the address) and per client
// address (whatever the email), with the same answer for known and
// unknown emails; refused requests queue nothing.
func TestForgotPasswordThrottled(t *testing.T) {
	e := newEnv(t, withTrustedProxies("0.0.0.0"), withLimits(func(c *modelstest.Clock) web.Limits {
		return web.Limits{ResetPerEmail: perMinute(c, 2), ResetPerAddress: perMinute(c, 5)}
	}))
	e.owner("ada@example.com")
	ask := func(client, email string) *page {
		b := e.browser()
		b.header.Set("X-Real-IP", client)
		b.get("/forgot-password")
		return b.post("/forgot-password", url.Values{"email": {email}})
	}
	for _, email := range []string{"ada@example.com", "nobody@example.com"} {
		ask("198.51.100.1", email).expect(http.StatusOK)
		ask("198.51.100.2", email).expect(http.StatusOK)
		ask("198.51.100.3", email).expect(http.StatusTooManyRequests).contains("Too many reset requests")
	}
	for i := range 5 {
		ask("203.0.113.9", "someone"+string(rune('a'+i))+"@example.com").expect(http.StatusOK)
	}
	ask("203.0.113.9", "else@example.com").expect(http.StatusTooManyRequests)
	// Every allowed request queued one message, known email or not; the
	// refused ones queued nothing.
	log, err := e.store.MailLog(context.Background(), models.OperatorActor, "", "")
	if err != nil || len(log) != 9 {
		t.Fatalf("queued %d messages, want 9 (the allowed requests): %v", len(log), err)
	}
	for _, l := range log {
		if l.Recipient == "else@example.com" {
			t.Errorf("a refused request queued %+v", l)
		}
	}
	e.clock.Advance(time.Minute)
	ask("198.51.100.4", "ada@example.com").expect(http.StatusOK)
}

// Changing the email sends a link to the new address and a notice to the
// old; the email changes only when the link is confirmed; sign-in then
// takes the new address. A wrong password changes nothing.
func TestEmailChange(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/account").expect(http.StatusOK).contains("Change email", `action="/account/email"`)
	b.post("/account/email", url.Values{"new_email": {"ada@new.example.com"}, "current_password": {"wrong password!"}}).
		expect(http.StatusUnprocessableEntity).fieldError("current_password", "Current password is incorrect.")
	b.post("/account/email", url.Values{"new_email": {"ada@new.example.com"}, "current_password": {password}}).
		redirectsTo("/account")
	b.get("/account").expect(http.StatusOK).contains("ada@example.com", "confirmation link is on its way")

	_, link := mailTo(t, srv, "ada@new.example.com", 1, "/confirm-email/")
	notice, _ := mailTo(t, srv, "ada@example.com", 1, "")
	if !strings.Contains(notice.Data, "ada@new.example.com") || notice.Header("Subject") != "cloudplane: your email address is being changed" {
		t.Errorf("notice:\n%s", notice.Data)
	}
	if link == "" {
		t.Fatal("no confirmation link")
	}
	e.browser().signIn("ada@new.example.com", password).expect(http.StatusUnprocessableEntity) // not yet

	c := e.browser()
	c.get(link).expect(http.StatusOK).contains("Confirm your new email", "ada@new.example.com")
	e.browser().signIn("ada@new.example.com", password).expect(http.StatusUnprocessableEntity) // opening is not confirming
	c.post(link, nil).redirectsTo("/sign-in?notice=email-changed")
	e.browser().signIn("ada@new.example.com", password).expect(http.StatusSeeOther)
	e.browser().signIn("ada@example.com", password).expect(http.StatusUnprocessableEntity)
	e.browser().get(link).expect(http.StatusNotFound) // once
}

// The notice to the old address carries a one-time cancel link: opening
// it shows a button (a mail scanner changes nothing), pressing it ends
// the change, whose confirmation link then fails.
func TestEmailChangeCancelLink(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/account/email", url.Values{"new_email": {"evil@attacker.example"}, "current_password": {password}}).
		redirectsTo("/account")
	_, confirm := mailTo(t, srv, "evil@attacker.example", 1, "/confirm-email/")
	_, cancel := mailTo(t, srv, "ada@example.com", 1, "/cancel-email-change/")
	if cancel == "" || confirm == "" {
		t.Fatal("no cancel or confirmation link")
	}
	c := e.browser()
	c.get(cancel).expect(http.StatusOK).contains("Cancel the email change")
	c.get(confirm).expect(http.StatusOK) // opening the cancel link alone changed nothing
	c.post(cancel, nil).redirectsTo("/sign-in?notice=email-change-cancelled")
	e.browser().get(confirm).expect(http.StatusNotFound)
	e.browser().get(cancel).expect(http.StatusNotFound) // once
	e.browser().signIn("ada@example.com", password).expect(http.StatusSeeOther)
}

// A confirmation for an address another user took meanwhile changes
// nothing.
func TestEmailChangeToTakenAddress(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/account/email", url.Values{"new_email": {"bob@example.com"}, "current_password": {password}}).redirectsTo("/account")
	_, link := mailTo(t, srv, "bob@example.com", 1, "/confirm-email/")
	e.owner("bob@example.com")
	c := e.browser()
	c.get(link).expect(http.StatusOK)
	c.post(link, nil).expect(http.StatusUnprocessableEntity).contains("Another user already has the email bob@example.com")
	c.get(link).expect(http.StatusOK) // the link was not used up
	e.browser().signIn("ada@example.com", password).expect(http.StatusSeeOther)
}

// Support staff read the mail log; owners may not.
func TestMailLogPage(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	if err := e.store.RequestPasswordReset(context.Background(), "ada@example.com", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	mailTo(t, srv, "ada@example.com", 1, "/reset-password/")
	testserver.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(e.signedIn("help@example.com").get("/mail-log").Body, ">sent<")
	}, "the log shows the mail sent")
	help := e.signedIn("help@example.com")
	p := help.get("/mail-log").expect(http.StatusOK)
	p.contains("Mail log", "ada@example.com", "cloudplane: reset your password", "password_reset", `href="/mail-log"`)
	if regexp.MustCompile(`reset-password/[0-9a-f]{64}`).MatchString(p.Body) {
		t.Error("the mail log shows a link")
	}
	help.get("/mail-log?status=failed").expect(http.StatusOK).lacks("ada@example.com")
	e.signedIn("ada@example.com").get("/mail-log").expect(http.StatusForbidden)
}
