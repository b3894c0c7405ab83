package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	mailer "cloudplane/webhooks/mail"
)

// logOnly runs a mail worker for e's store with no SMTP server: mail is
// written to the log.
func (e *env) logOnly() {
	e.t.Helper()
	w := mailer.New(mailer.Config{Store: e.store, Sender: mailer.LogSender{Log: slog.New(slog.NewTextHandler(io.Discard, nil))},
		BaseURL: mailBase, Poll: 20 * time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	e.store.OnMail(w.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

var mailLogLink = regexp.MustCompile(`/reset-password/[0-9a-f]{64}`)

// Without an SMTP server, support staff see a reset link in the mail log,
// with a copy button, until it expires or is used; the requester sees it
// nowhere, and owners cannot open the log.
func TestMailLogShowsUnsentLinksToStaff(t *testing.T) {
	e := newEnv(t)
	e.logOnly()
	e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	b := e.browser()
	b.get("/forgot-password")
	answer := b.post("/forgot-password", url.Values{"email": {"ada@example.com"}}).expect(http.StatusOK)
	if mailLogLink.MatchString(answer.Body) {
		t.Fatal("the requester was shown the link")
	}
	help := e.signedIn("help@example.com")
	testserver.Eventually(t, 5*time.Second, func() bool {
		return mailLogLink.MatchString(help.get("/mail-log").Body)
	}, "the link in the mail log")
	p := help.get("/mail-log").expect(http.StatusOK).contains("data-copy=", "Not sent: no SMTP server")
	link := mailLogLink.FindString(p.Body)
	e.browser().get(link).expect(http.StatusOK).contains("ada@example.com")
	e.signedIn("ada@example.com").get("/mail-log").expect(http.StatusForbidden)

	// Expired: gone from the log, and ExpireMail clears the token.
	e.clock.Advance(models.SelfServiceResetTTL)
	help.get("/mail-log").expect(http.StatusOK).lacks(link)
	if _, err := e.store.ExpireMail(context.Background()); err != nil {
		t.Fatal(err)
	}
	var data string
	if err := e.store.DB().Raw("SELECT data FROM mail_messages").Scan(&data).Error; err != nil ||
		strings.Contains(data, strings.TrimPrefix(link, "/reset-password/")) {
		t.Fatalf("token kept after expiry: %q %v", data, err)
	}
}

// With an SMTP server, the mail log never shows a link.
func TestMailLogHidesSentLinks(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	if err := e.store.RequestPasswordReset(context.Background(), "ada@example.com", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	mailTo(t, srv, "ada@example.com", 1, "/reset-password/")
	help := e.signedIn("help@example.com")
	testserver.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(help.get("/mail-log").Body, ">sent<")
	}, "sent")
	help.get("/mail-log").expect(http.StatusOK).lacks("data-copy=")
	if mailLogLink.MatchString(help.get("/mail-log").Body) {
		t.Fatal("a sent link in the mail log")
	}
}
