// Package mailtest is a real SMTP server over TCP for tests
// (github.com/emersion/go-smtp): STARTTLS or implicit TLS with its own
// certificate authority, optional AUTH PLAIN, and a record of every
// message accepted and every AUTH tried.
package mailtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	Data string // headers and body, as received
	TLS  bool   // the session was encrypted
	User string // who authenticated, if anyone
}

// Header returns the first value of the named header of the message
// (unfolded), or "".
func (m Message) Header(name string) string {
	head, _, _ := strings.Cut(m.Data, "\r\n\r\n")
	for _, l := range strings.Split(head, "\r\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Options configure a server.
type Options struct {
	Addr     string // where to listen; 127.0.0.1:0 when empty
	TLS      bool   // offer STARTTLS (or, with Implicit, speak TLS at once)
	Implicit bool
	// Username and Password, when set, are the only credentials AUTH
	// PLAIN accepts; it is offered even without TLS (AllowInsecureAuth),
	// so a test sees whether a client would send them in clear.
	Username, Password string
	// Reject answers every DATA with this temporary error when set.
	Reject func() bool
	// NoSuchUser refuses these recipients for good (550 5.1.1).
	NoSuchUser []string
	// Slow is how long the server takes to answer each DATA (a relay that
	// scans mail); the message counts as delivered once it answers.
	Slow time.Duration
	// OnData, when set, is called as each DATA begins (a test's barrier:
	// the client is inside its send).
	OnData func()
}

// Server is a running SMTP server.
type Server struct {
	Addr string
	// CA trusts the server's certificate (valid for every address the
	// machine has).
	CA *x509.CertPool
	// CAPEM is that certificate in PEM, for a process that reads
	// SSL_CERT_FILE.
	CAPEM []byte

	srv      *smtp.Server
	mu       sync.Mutex
	messages []Message
	auths    []string // usernames tried, with "tls" or "clear"
	opts     Options
}

// Start runs a server until the test ends.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	cert, pool := certificate(tb)
	s := &Server{CA: pool, opts: o,
		CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Domain = "mailtest.local"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	if o.TLS {
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	if o.TLS && o.Implicit {
		ln = tls.NewListener(ln, s.srv.TLSConfig)
	}
	s.Addr = ln.Addr().String()
	go func() { _ = s.srv.Serve(ln) }()
	tb.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// Close stops the server: connections to it are refused.
func (s *Server) Close() { _ = s.srv.Close() }

// Messages returns what was accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Auths returns the AUTH attempts so far, as "user/tls" or "user/clear".
func (s *Server) Auths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

type session struct {
	s    *Server
	c    *smtp.Conn
	msg  Message
	user string
}

func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, c: c}, nil }

func (ss *session) encrypted() bool { _, ok := ss.c.TLSConnectionState(); return ok }

func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		how := "clear"
		if ss.encrypted() {
			how = "tls"
		}
		ss.s.mu.Lock()
		ss.s.auths = append(ss.s.auths, username+"/"+how)
		ss.s.mu.Unlock()
		if username != ss.s.opts.Username || password != ss.s.opts.Password {
			return errors.New("invalid credentials")
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.opts.Username != "" && ss.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	ss.msg = Message{From: from}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if slices.Contains(ss.s.opts.NoSuchUser, to) {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	ss.msg.To = append(ss.msg.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if ss.s.opts.OnData != nil {
		ss.s.opts.OnData()
	}
	time.Sleep(ss.s.opts.Slow) // the server's own pace, not a test's wait
	if ss.s.opts.Reject != nil && ss.s.opts.Reject() {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	ss.msg.Data, ss.msg.TLS, ss.msg.User = string(b), ss.encrypted(), ss.user
	ss.s.mu.Lock()
	ss.s.messages = append(ss.s.messages, ss.msg)
	ss.s.mu.Unlock()
	return nil
}

func (ss *session) Reset()        { ss.msg = Message{} }
func (ss *session) Logout() error { return nil }

// certificate makes a CA-signed certificate for localhost, the machine's
// host name and every address of the machine.
func certificate(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		DNSNames: []string{"localhost"}}
	if name, err := os.Hostname(); err == nil && name != "" {
		tmpl.DNSNames = append(tmpl.DNSNames, name)
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			tmpl.IPAddresses = append(tmpl.IPAddresses, n.IP)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: parsed}, pool
}

// NonLoopbackIP is an address of this machine that is not loopback, for
// testing what a client sends to a remote server; "" when it has none.
func NonLoopbackIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
