package mail_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	mailer "cloudplane/webhooks/mail"
	"cloudplane/webhooks/mail/mailtest"
)

const baseURL = "https://console.example.com"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// sender is an SMTP sender to srv, trusting its certificate.
func sender(t *testing.T, rawURL string, srv *mailtest.Server) *mailer.SMTP {
	t.Helper()
	s, err := mailer.ParseSMTP(rawURL, "cloudplane <noreply@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	s.Timeout = 5 * time.Second
	if srv != nil {
		s.TLS = &tls.Config{RootCAs: srv.CA}
	}
	return s
}

// run starts a worker until the test ends.
func run(t *testing.T, cfg mailer.Config) *mailer.Worker {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = baseURL
	}
	if cfg.Log == nil {
		cfg.Log = quiet
	}
	if cfg.Poll == 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	w := mailer.New(cfg)
	cfg.Store.OnMail(w.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// requestReset creates a user and asks for their reset link.
func requestReset(t *testing.T, store *models.Store, email string) {
	t.Helper()
	modelstest.Owner(t, store, email)
	if err := store.RequestPasswordReset(context.Background(), email, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
}

// mailLog is the store's whole mail log, as support staff read it.
func mailLog(t *testing.T, store *models.Store) []models.MailLogEntry {
	t.Helper()
	log, err := store.MailLog(context.Background(), models.OperatorActor, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return log
}

var resetLink = regexp.MustCompile(regexp.QuoteMeta(baseURL) + `/reset-password/([0-9a-f]{64})`)

// A reset request's mail arrives over SMTP with a plain-text and an HTML
// part, the product's name, a link built from the base URL that opens the
// reset form, why it was sent and how to stop it; once sent, the outbox
// row keeps no link.
func TestResetMailArrivesWithWorkingLink(t *testing.T) {
	store := modelstest.Open(t)
	srv := mailtest.Start(t, mailtest.Options{})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	requestReset(t, store, "ada@example.com")

	testserver.Eventually(t, 10*time.Second, func() bool { return len(srv.Messages()) == 1 }, "the reset mail")
	m := srv.Messages()[0]
	if len(m.To) != 1 || m.To[0] != "ada@example.com" || m.From != "noreply@example.com" {
		t.Fatalf("envelope %q -> %q", m.From, m.To)
	}
	if got := m.Header("Subject"); got != "cloudplane: reset your password" {
		t.Errorf("subject %q", got)
	}
	if from := m.Header("From"); !strings.Contains(from, "cloudplane") || !strings.Contains(from, "<noreply@example.com>") {
		t.Errorf("from %q", from)
	}
	for _, want := range []string{"multipart/alternative", "text/plain", "text/html", "You got this email because",
		"ignore it", baseURL + "/"} {
		if !strings.Contains(m.Data, want) {
			t.Errorf("message lacks %q:\n%s", want, m.Data)
		}
	}
	links := resetLink.FindAllStringSubmatch(decodeQP(m.Data), -1)
	if len(links) < 2 { // in both parts
		t.Fatalf("want the link in both parts, got %d:\n%s", len(links), m.Data)
	}
	u, err := store.CheckPasswordResetToken(context.Background(), links[0][1])
	if err != nil || u.Email != "ada@example.com" {
		t.Fatalf("the link opens %v, %v", u, err)
	}
	testserver.Eventually(t, 5*time.Second, func() bool {
		l := mailLog(t, store)
		return len(l) == 1 && l[0].Status == models.MailSent
	}, "the mail logged as sent")
	l := mailLog(t, store)[0]
	if l.Attempts != 1 || l.SentAt == nil || l.Kind != models.MailPasswordReset || l.Recipient != "ada@example.com" {
		t.Errorf("log entry %+v", l)
	}
	var data string
	if err := store.DB().Raw("SELECT data FROM mail_messages").Scan(&data).Error; err != nil || strings.Contains(data, links[0][1]) {
		t.Errorf("a sent message keeps its link: %q %v", data, err)
	}
}

// decodeQP undoes quoted-printable soft line breaks and =3D, enough to
// find a link in either part.
func decodeQP(s string) string {
	return strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(s)
}

// A reset request writes the same single outbox row whether or not the
// address has an account (so its timing tells nothing); the worker drops
// the unknown one without a byte to the SMTP server, and sends the known
// one. An invalid address queues nothing.
func TestResetOfUnknownEmailIsDroppedByTheWorker(t *testing.T) {
	store := modelstest.Open(t)
	modelstest.Owner(t, store, "ada@example.com")
	for _, email := range []string{"nobody@example.com", "ada@example.com", "not an address", ""} {
		if err := store.RequestPasswordReset(context.Background(), email, "192.0.2.1"); err != nil {
			t.Fatalf("%q: %v", email, err)
		}
	}
	var rows []struct{ Recipient, Data string }
	if err := store.DB().Raw("SELECT recipient, data FROM mail_messages ORDER BY recipient").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Recipient != "ada@example.com" || rows[1].Recipient != "nobody@example.com" ||
		rows[0].Data != rows[1].Data {
		t.Fatalf("want one identical row per valid address, got %+v", rows)
	}
	srv := mailtest.Start(t, mailtest.Options{})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	testserver.Eventually(t, 10*time.Second, func() bool {
		l := mailLog(t, store)
		return len(l) == 2 && l[0].Status != models.MailPending && l[1].Status != models.MailPending
	}, "both resolved")
	for _, l := range mailLog(t, store) {
		want := map[string]string{"ada@example.com": models.MailSent, "nobody@example.com": models.MailFailed}[l.Recipient]
		if l.Status != want {
			t.Errorf("%s: %s (%s), want %s", l.Recipient, l.Status, l.LastError, want)
		}
	}
	if m := srv.Messages(); len(m) != 1 || m[0].To[0] != "ada@example.com" {
		t.Fatalf("sent %+v", m)
	}
}

// While the SMTP server is down, attempts fail and are retried with
// backoff, each recorded in the mail log (attempts, last error, next
// attempt); once it is back, the message is sent exactly once.
func TestSMTPDownThenBack(t *testing.T) {
	store := modelstest.Open(t)
	addr := testserver.RefusedAddress(t)
	schedule := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond,
		200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond,
		200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond, time.Hour}
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+addr, nil), Schedule: schedule})
	requestReset(t, store, "ada@example.com")

	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Attempts >= 3 }, "three failed attempts")
	l := mailLog(t, store)[0]
	if l.Status != models.MailPending || l.LastError == "" || !strings.Contains(l.LastError, "refused") || l.SentAt != nil {
		t.Fatalf("after failures: %+v", l)
	}
	if !l.NextAttemptAt.After(l.CreatedAt) {
		t.Errorf("no backoff recorded: next %v, created %v", l.NextAttemptAt, l.CreatedAt)
	}

	srv := mailtest.Start(t, mailtest.Options{Addr: addr})
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Status == models.MailSent }, "sent once back")
	// Sent, with no lease left: no worker can claim it again.
	assertDone(t, store)
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("sent %d times", n)
	}
	if l := mailLog(t, store)[0]; l.LastError != "" || l.Attempts < 4 {
		t.Errorf("after success: %+v", l)
	}
}

// A server that keeps answering a temporary error exhausts the schedule:
// the message fails, with every attempt counted, and its data is dropped.
func TestRetriesRunOut(t *testing.T) {
	store := modelstest.Open(t)
	srv := mailtest.Start(t, mailtest.Options{Reject: func() bool { return true }})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv),
		Schedule: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}})
	requestReset(t, store, "ada@example.com")
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Status == models.MailFailed }, "given up")
	l := mailLog(t, store)[0]
	if l.Attempts != 3 || !strings.Contains(l.LastError, "451") {
		t.Errorf("%+v", l)
	}
	var data string
	if err := store.DB().Raw("SELECT data FROM mail_messages").Scan(&data).Error; err != nil || data != "{}" {
		t.Errorf("data %q %v", data, err)
	}
}

// Two workers on two stores sharing one database (two replicas) send
// every message of a burst exactly once.
func TestTwoWorkersNeverSendOneMessageTwice(t *testing.T) {
	dsn := modelstest.DSN(t)
	a, b := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	srv := mailtest.Start(t, mailtest.Options{})
	const n = 40
	for i := range n {
		modelstest.Owner(t, a, fmt.Sprintf("user%d@example.com", i))
	}
	for _, s := range []*models.Store{a, b} {
		run(t, mailer.Config{Store: s, Sender: sender(t, "smtp://"+srv.Addr, srv), Batch: 3})
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []*models.Store{a, b}[i%2]
			if err := s.RequestPasswordReset(context.Background(), fmt.Sprintf("user%d@example.com", i), "192.0.2.1"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	testserver.Eventually(t, 30*time.Second, func() bool {
		for _, l := range mailLog(t, a) {
			if l.Status != models.MailSent {
				return false
			}
		}
		return true
	}, "every message sent")
	seen := map[string]int{}
	for _, m := range srv.Messages() {
		seen[m.To[0]]++
	}
	if len(seen) != n {
		t.Errorf("%d recipients got mail, want %d", len(seen), n)
	}
	for to, c := range seen {
		if c != 1 {
			t.Errorf("%s got %d messages", to, c)
		}
	}
	for _, l := range mailLog(t, a) {
		if l.Attempts != 1 {
			t.Errorf("%s: %d attempts", l.Recipient, l.Attempts)
		}
	}
}

// With credentials, smtp:// uses STARTTLS and authenticates inside it;
// smtps:// speaks TLS from the start.
func TestSTARTTLSAndImplicitTLS(t *testing.T) {
	store := modelstest.Open(t)
	starttls := mailtest.Start(t, mailtest.Options{TLS: true, Username: "mailer", Password: "s3cret"})
	implicit := mailtest.Start(t, mailtest.Options{TLS: true, Implicit: true, Username: "mailer", Password: "s3cret"})
	for _, c := range []struct {
		url string
		srv *mailtest.Server
	}{{"smtp://mailer:s3cret@" + starttls.Addr, starttls}, {"smtps://mailer:s3cret@" + implicit.Addr, implicit}} {
		err := sender(t, c.url, c.srv).Send(context.Background(), mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "<p>h</p>"})
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		m := c.srv.Messages()
		if len(m) != 1 || !m[0].TLS || m[0].User != "mailer" {
			t.Fatalf("%s: %+v", c.url, m)
		}
		if a := c.srv.Auths(); len(a) != 1 || a[0] != "mailer/tls" {
			t.Errorf("%s: auths %v", c.url, a)
		}
	}
	_ = store
}

// Credentials never cross the network in clear: to a server that is not
// on a loopback address and offers no STARTTLS, the attempt fails before
// AUTH; to a loopback server without TLS they may be sent (a local relay).
func TestCredentialsNeverInClearToRemoteHost(t *testing.T) {
	host, listen := remoteHost(t) // fails, never skips, without one
	remote := mailtest.Start(t, mailtest.Options{Addr: listen, Username: "mailer", Password: "s3cret"})
	err := sender(t, "smtp://mailer:s3cret@"+at(host, remote), remote).Send(context.Background(),
		mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "tls") {
		t.Fatalf("want a STARTTLS failure, got %v", err)
	}
	if a, m := remote.Auths(), remote.Messages(); len(a) != 0 || len(m) != 0 {
		t.Fatalf("credentials or mail went out in clear: %v %v", a, m)
	}
	// The same remote server with STARTTLS takes them, encrypted.
	secure := mailtest.Start(t, mailtest.Options{Addr: listen, TLS: true, Username: "mailer", Password: "s3cret"})
	if err := sender(t, "smtp://mailer:s3cret@"+at(host, secure), secure).Send(context.Background(),
		mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"}); err != nil {
		t.Fatal(err)
	}
	if a := secure.Auths(); len(a) != 1 || a[0] != "mailer/tls" {
		t.Errorf("auths %v", a)
	}
	// A loopback relay without TLS may take them.
	local := mailtest.Start(t, mailtest.Options{Username: "mailer", Password: "s3cret"})
	if err := sender(t, "smtp://mailer:s3cret@"+local.Addr, local).Send(context.Background(),
		mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"}); err != nil {
		t.Fatal(err)
	}
	if a := local.Auths(); len(a) != 1 || a[0] != "mailer/clear" {
		t.Errorf("auths %v", a)
	}
}

// Without credentials, smtp:// still upgrades to TLS when it is offered.
func TestSTARTTLSWheneverOffered(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{TLS: true})
	if err := sender(t, "smtp://"+srv.Addr, srv).Send(context.Background(),
		mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"}); err != nil {
		t.Fatal(err)
	}
	if m := srv.Messages(); len(m) != 1 || !m[0].TLS {
		t.Fatalf("%+v", m)
	}
}

// A line break in the sender's name or the subject cannot add a header
// or a recipient; --mail-from with one is refused at start.
func TestHeaderInjection(t *testing.T) {
	if _, err := mailer.ParseFrom("cloudplane\r\nBcc: evil@example.com <noreply@example.com>"); err == nil {
		t.Error("--mail-from with a line break was accepted")
	}
	srv := mailtest.Start(t, mailtest.Options{})
	s := sender(t, "smtp://"+srv.Addr, srv)
	s.From = &mail.Address{Name: "cloud\r\nBcc: evil@example.com", Address: "noreply@example.com"}
	err := s.Send(context.Background(), mailer.Outgoing{To: "ada@example.com",
		Subject: "hello\r\nBcc: evil@example.com\r\nX-Injected: yes", Text: "t", HTML: "h"})
	if err != nil {
		t.Fatal(err)
	}
	m := srv.Messages()[0]
	if len(m.To) != 1 || m.To[0] != "ada@example.com" {
		t.Fatalf("recipients %v", m.To)
	}
	head, _, _ := strings.Cut(m.Data, "\r\n\r\n")
	for _, l := range strings.Split(head, "\r\n") {
		if strings.HasPrefix(strings.ToLower(l), "bcc:") || strings.HasPrefix(strings.ToLower(l), "x-injected:") {
			t.Errorf("injected header %q in:\n%s", l, head)
		}
	}
	// A recipient with a line break is refused, not sent.
	if err := s.Send(context.Background(), mailer.Outgoing{To: "ada@example.com\r\nBcc: evil@example.com",
		Subject: "x", Text: "t", HTML: "h"}); err == nil {
		t.Error("a recipient with a line break was accepted")
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("%d messages arrived, want only the first: %+v", n, srv.Messages())
	}
}

// Without an SMTP server, the message is written to the log, link
// included, and counted as sent.
func TestLogSender(t *testing.T) {
	store := modelstest.Open(t)
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	run(t, mailer.Config{Store: store, Sender: mailer.LogSender{Log: log}})
	requestReset(t, store, "ada@example.com")
	testserver.Eventually(t, 10*time.Second, func() bool { return resetLink.MatchString(buf.String()) }, "the link in the log")
	testserver.Eventually(t, 5*time.Second, func() bool { return mailLog(t, store)[0].Status == models.MailSent }, "logged as sent")
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
	n  atomic.Int64
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n.Add(1)
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
