package mail_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	mailer "cloudplane/webhooks/mail"
	"cloudplane/webhooks/mail/mailtest"
)

// assertDone checks every message is sent or failed and holds no lease,
// so no worker can ever claim it again: what "sent once" rests on.
func assertDone(t *testing.T, store *models.Store) {
	t.Helper()
	var open int64
	if err := store.DB().Raw("SELECT count(*) FROM mail_messages WHERE status = ? OR lease_until IS NOT NULL",
		models.MailPending).Scan(&open).Error; err != nil || open != 0 {
		t.Fatalf("%d messages still claimable or leased (%v)", open, err)
	}
}

// remoteHost is a name or address of this machine that the sender must
// treat as remote, and where to listen for it: a non-loopback IP, else
// the machine's host name (not "localhost", whatever it resolves to). A
// machine with neither fails the test rather than skipping it.
func remoteHost(t *testing.T) (host, listen string) {
	t.Helper()
	if ip := mailtest.NonLoopbackIP(); ip != "" {
		return ip, net.JoinHostPort(ip, "0")
	}
	name, err := os.Hostname()
	if err == nil && name != "localhost" {
		if addrs, err := net.LookupHost(name); err == nil && len(addrs) > 0 {
			return name, net.JoinHostPort(addrs[0], "0")
		}
	}
	t.Fatalf("no non-loopback address and no resolvable host name (%q, %v): the remote-host checks cannot run", name, err)
	return "", ""
}

// at is srv's address under host.
func at(host string, srv *mailtest.Server) string {
	_, port, _ := net.SplitHostPort(srv.Addr)
	return net.JoinHostPort(host, port)
}

// Without credentials too, smtp:// to a remote host requires STARTTLS:
// a relay that does not offer it (or an attacker who strips it) gets no
// mail. tls=none is the explicit opt-out.
func TestRemoteSMTPWithoutCredentialsRequiresSTARTTLS(t *testing.T) {
	host, listen := remoteHost(t)
	srv := mailtest.Start(t, mailtest.Options{Addr: listen})
	url := "smtp://" + at(host, srv)
	err := sender(t, url, srv).Send(context.Background(), mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "starttls") {
		t.Fatalf("want a STARTTLS failure, got %v", err)
	}
	if m := srv.Messages(); len(m) != 0 {
		t.Fatalf("mail went out in clear: %+v", m)
	}
	if err := sender(t, url+"?tls=none", srv).Send(context.Background(),
		mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"}); err != nil {
		t.Fatalf("tls=none: %v", err)
	}
	if m := srv.Messages(); len(m) != 1 || m[0].TLS {
		t.Fatalf("tls=none: %+v", m)
	}
	if _, err := mailer.ParseSMTP("smtp://h?tls=maybe", "a@example.com"); err == nil {
		t.Error("an unknown tls option was accepted")
	}
}

// --smtp-url's parse errors never print the password.
func TestSMTPURLErrorHidesPassword(t *testing.T) {
	for _, u := range []string{"smtp://mailer:s3cret@mail.example.com:58x7", "smtp://mailer:s3cret@mail example.com",
		"ftp://mailer:s3cret@mail.example.com", "smtp://mailer:s3cret@mail.example.com:99999"} {
		_, err := mailer.ParseSMTP(u, "a@example.com")
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// A permanent rejection (550 no such user) fails the message at once:
// one attempt, no retry.
func TestPermanentRejectionFailsAtOnce(t *testing.T) {
	store := modelstest.Open(t)
	srv := mailtest.Start(t, mailtest.Options{NoSuchUser: []string{"ada@example.com"}})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	requestReset(t, store, "ada@example.com")
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Status != models.MailPending }, "an outcome")
	l := mailLog(t, store)[0]
	if l.Status != models.MailFailed || l.Attempts != 1 || !strings.Contains(l.LastError, "550") {
		t.Fatalf("%+v", l)
	}
	assertDone(t, store)
}

// The send's deadline bounds the whole SMTP conversation, not only the
// dial: a server slower than it is cut off at the deadline.
func TestSendDeadlineBoundsTheConversation(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{Slow: 3 * time.Second})
	s := sender(t, "smtp://"+srv.Addr, srv)
	s.Timeout = 2 * time.Second // each stage alone would fit
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Send(ctx, mailer.Outgoing{To: "ada@example.com", Subject: "hi", Text: "t", HTML: "h"})
	if took := time.Since(start); err == nil || took > 1500*time.Millisecond {
		t.Fatalf("took %v, err %v", took, err)
	}
}

// stealing is a Sender that, on its first message, lets its worker's
// claim on the other messages run out and has another worker ("B") claim
// them, as a replica would while this one is slow.
type stealing struct {
	mailer.Sender
	other *models.Store
	t     *testing.T
	stole []models.MailJob
}

func (s *stealing) Send(ctx context.Context, o mailer.Outgoing) error {
	if s.stole == nil {
		if err := s.other.DB().Exec("UPDATE mail_messages SET lease_until = ? WHERE recipient <> ?",
			time.Now().Add(-time.Minute), o.To).Error; err != nil {
			s.t.Error(err)
		}
		jobs, err := s.other.ClaimMail(ctx, "B", 100, time.Hour)
		if err != nil {
			s.t.Error(err)
		}
		s.stole = append([]models.MailJob{}, jobs...)
	}
	return s.Sender.Send(ctx, o)
}

// A worker whose claim ran out while it sent earlier messages does not
// send the rest: another worker holds them now.
func TestLostLeaseIsNotSent(t *testing.T) {
	dsn := modelstest.DSN(t)
	a, b := modelstest.OpenAt(t, dsn), modelstest.OpenAt(t, dsn)
	for _, e := range []string{"u1@example.com", "u2@example.com", "u3@example.com"} {
		modelstest.Owner(t, a, e)
		if err := a.RequestPasswordReset(context.Background(), e, "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	}
	srv := mailtest.Start(t, mailtest.Options{})
	st := &stealing{Sender: sender(t, "smtp://"+srv.Addr, srv), other: b, t: t}
	var log lockedBuffer
	run(t, mailer.Config{Store: a, Sender: st, Batch: 3, Owner: "A", Log: slog.New(slog.NewTextHandler(&log, nil))})
	testserver.Eventually(t, 10*time.Second, func() bool {
		return strings.Count(log.String(), "lease ran out before sending") == 2
	}, "A to skip the two messages B took")
	if len(st.stole) != 2 {
		t.Fatalf("B took %d", len(st.stole))
	}
	// A sent only the message it was sending; B holds the others.
	if m := srv.Messages(); len(m) != 1 {
		t.Fatalf("A sent %d messages after losing its lease", len(m))
	}
	var heldByB int64
	if err := a.DB().Raw("SELECT count(*) FROM mail_messages WHERE status = ? AND lease_owner = 'B'", models.MailPending).
		Scan(&heldByB).Error; err != nil || heldByB != 2 {
		t.Fatalf("B holds %d (%v), want 2", heldByB, err)
	}
}

// A message whose links expired is not sent, and its data (the token)
// is cleared; a retry that would fall after the expiry gives up instead.
func TestExpiredLinksAreNotSent(t *testing.T) {
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	srv := mailtest.Start(t, mailtest.Options{Reject: func() bool { return true }})
	// The first attempt resolves the reset (a link valid an hour) and
	// fails; the retry is scheduled within the hour.
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv),
		Schedule: []time.Duration{30 * time.Minute, 2 * time.Hour}})
	requestReset(t, store, "ada@example.com")
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Attempts == 1 }, "a failed attempt")
	if l := mailLog(t, store)[0]; l.Status != models.MailPending {
		t.Fatalf("%+v", l)
	}
	clock.Advance(40 * time.Minute) // the retry (30 min and up to a tenth of jitter) is due; the next one would be after the link died
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Status == models.MailFailed }, "given up")
	if l := mailLog(t, store)[0]; l.Attempts != 2 {
		t.Fatalf("%+v", l)
	}
	assertDone(t, store)
}

// A message still pending when its link expires is dropped unsent by the
// hourly expiry, its link forgotten. No worker runs here: one would race
// the expiry to the same end, and the test would not know which it saw.
func TestExpiredPendingMailIsDroppedUnsent(t *testing.T) {
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	modelstest.Owner(t, store, "bob@example.com")
	err := store.RequestEmailChange(context.Background(), mustUser(t, store, "bob@example.com").Actor(),
		models.EmailChangeInput{NewEmail: "bob@new.example", CurrentPassword: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(models.EmailChangeTTL + time.Minute)
	if n, err := store.ExpireMail(context.Background()); err != nil || n != 2 {
		t.Fatalf("expired %d, %v", n, err)
	}
	var data []string
	if err := store.DB().Raw("SELECT data FROM mail_messages WHERE recipient LIKE 'bob%'").Scan(&data).Error; err != nil {
		t.Fatal(err)
	}
	for _, d := range data {
		if d != "{}" {
			t.Errorf("expired message keeps %q", d)
		}
	}
}

func mustUser(t *testing.T, store *models.Store, email string) *models.User {
	t.Helper()
	us, err := store.Users(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range us {
		if us[i].Email == email {
			return &us[i]
		}
	}
	t.Fatal(errors.New("no user " + email))
	return nil
}

// Sent and failed mail older than the retention is pruned; pending mail
// stays.
func TestPruneMail(t *testing.T) {
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	srv := mailtest.Start(t, mailtest.Options{})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	requestReset(t, store, "ada@example.com")
	testserver.Eventually(t, 10*time.Second, func() bool { return mailLog(t, store)[0].Status == models.MailSent }, "sent")
	if n, err := store.PruneMail(context.Background(), 24*time.Hour); err != nil || n != 0 {
		t.Fatalf("pruned a fresh message: %d %v", n, err)
	}
	clock.Advance(25 * time.Hour)
	if n, err := store.PruneMail(context.Background(), 24*time.Hour); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
}

// Stopping the worker while it sends finishes that send and records it
// before Run returns; a send slower than StopGrace is cut short and
// recorded as a failed attempt, with no lease left behind either way.
func TestStopFinishesAndRecordsTheSend(t *testing.T) {
	for _, c := range []struct {
		name       string
		slow, stop time.Duration
		want       string
	}{{"finished", 300 * time.Millisecond, 5 * time.Second, models.MailSent},
		{"cut short", 5 * time.Second, 300 * time.Millisecond, models.MailPending}} {
		t.Run(c.name, func(t *testing.T) {
			store := modelstest.Open(t)
			inData := make(chan struct{}, 1)
			srv := mailtest.Start(t, mailtest.Options{Slow: c.slow, OnData: func() { inData <- struct{}{} }})
			s := sender(t, "smtp://"+srv.Addr, srv)
			s.Timeout = 10 * time.Second
			w := mailer.New(mailer.Config{Store: store, Sender: s, BaseURL: baseURL, Log: quiet, Timeout: 10 * time.Second,
				StopGrace: c.stop, Poll: 20 * time.Millisecond})
			store.OnMail(w.Wake)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = w.Run(ctx) }()
			defer func() { cancel(); <-done }()
			requestReset(t, store, "ada@example.com")
			select {
			case <-inData:
			case <-time.After(10 * time.Second):
				t.Fatal("the send never started")
			}
			cancel()
			select {
			case <-done:
			case <-time.After(c.stop + 3*time.Second):
				t.Fatal("the worker outlived its stop budget")
			}
			l := mailLog(t, store)[0]
			if l.Status != c.want || l.Attempts != 1 {
				t.Fatalf("after stop: %+v", l)
			}
			var leased int64
			if err := store.DB().Raw("SELECT count(*) FROM mail_messages WHERE lease_until IS NOT NULL").Scan(&leased).Error; err != nil || leased != 0 {
				t.Fatalf("%d leases left (%v)", leased, err)
			}
		})
	}
}
