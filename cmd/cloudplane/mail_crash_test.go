package main

import (
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks/mail/mailtest"
)

// tarpit accepts SMTP connections and never answers: a sender stays in
// the middle of its send. Each accepted connection is reported.
func tarpit(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 16)
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			ch <- struct{}{}
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String(), ch
}

// askReset fills in "Forgot your password?" on a running server.
func askReset(t *testing.T, base, email string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := c.Get(base + "/forgot-password")
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	_, _ = ioCopy(&body, res)
	m := regexp.MustCompile(`name="csrf_token" value="([0-9a-f]+)"`).FindStringSubmatch(body.String())
	if m == nil {
		t.Fatalf("no CSRF token in:\n%s", body.String())
	}
	res, err = c.PostForm(base+"/forgot-password", url.Values{"email": {email}, "csrf_token": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	body.Reset()
	_, _ = ioCopy(&body, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(body.String(), "If an account uses that address") {
		t.Fatalf("status %d:\n%s", res.StatusCode, body.String())
	}
}

func ioCopy(b *strings.Builder, res *http.Response) (int64, error) {
	defer res.Body.Close()
	var n int64
	buf := make([]byte, 32<<10)
	for {
		k, err := res.Body.Read(buf)
		b.Write(buf[:k])
		n += int64(k)
		if err != nil {
			return n, nil
		}
	}
}

// A server killed with SIGKILL after a reset's mail was committed, while
// it was sending it, loses nothing: the next server sends the message,
// with a working link built from --base-url, once the dead one's lease
// ends, and exactly once.
func TestMailSurvivesSIGKILL(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	mustCLI(t, "users", "create", "--database", dsn, "--email", "ada@example.com", "--password", "a long passphrase")
	stuck, accepted := tarpit(t)
	// The first server's send must still be under way when it is killed
	// (its timeout far longer than the kill takes), so the message is left
	// under a lease that only expiry frees: 3·--mail-timeout.
	args := func(smtp, timeout string) []string {
		return []string{"--rate-limit", "off", "--smtp-url", "smtp://" + smtp, "--mail-timeout", timeout,
			"--base-url", "https://console.example.com"}
	}
	first := testserver.Start(t, testserver.Options{Database: dsn, Args: args(stuck, "4s")})
	askReset(t, first.URL, "ada@example.com")
	select {
	case <-accepted: // the worker is inside its send
	case <-time.After(10 * time.Second):
		t.Fatal("the first server never tried to send")
	}
	if code := first.Stop(t, syscall.SIGKILL, 30*time.Second); code != -1 {
		t.Fatalf("exit %d, want death by SIGKILL", code)
	}
	store := modelstest.OpenAt(t, dsn)
	var attempts []int
	if err := store.DB().Raw("SELECT attempts FROM mail_messages WHERE lease_until IS NOT NULL AND status = 'pending'").
		Scan(&attempts).Error; err != nil || len(attempts) != 1 || attempts[0] != 0 {
		t.Fatalf("want one leased message with no attempt recorded (killed mid-send), got %v %v", attempts, err)
	}

	srv := mailtest.Start(t, mailtest.Options{TLS: true})
	// The binary trusts the test's CA through SSL_CERT_FILE.
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	second := testserver.Start(t, testserver.Options{Database: dsn, Args: args(srv.Addr, "1s"), Env: []string{"SSL_CERT_FILE=" + ca}})
	testserver.Eventually(t, 30*time.Second, func() bool { return len(srv.Messages()) > 0 }, "the mail sent by the second server")
	m := srv.Messages()[0]
	if m.To[0] != "ada@example.com" || !m.TLS {
		t.Fatalf("%+v", m)
	}
	link := regexp.MustCompile(`https://console\.example\.com(/reset-password/[0-9a-f]{64})`).
		FindStringSubmatch(strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(m.Data))
	if link == nil {
		t.Fatalf("no link in:\n%s", m.Data)
	}
	res, err := http.Get(second.URL + link[1])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the link answers %d", res.StatusCode)
	}
	// Sent and released: no worker can claim it again.
	testserver.Eventually(t, 5*time.Second, func() bool {
		var open int64
		err := store.DB().Raw("SELECT count(*) FROM mail_messages WHERE status = 'pending' OR lease_until IS NOT NULL").Scan(&open).Error
		return err == nil && open == 0
	}, "the message recorded as sent")
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("sent %d times", n)
	}
}
