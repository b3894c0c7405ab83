package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTP sends mail through one SMTP server, as --smtp-url names it:
// smtp://user:pass@host:587 uses STARTTLS whenever the server offers it,
// smtps://host:465 implicit TLS. Credentials are never sent in clear: to
// any host but a loopback address, smtp:// with a user requires STARTTLS
// and fails the attempt (before a byte of them is sent) when the server
// does not offer it.
type SMTP struct {
	Host     string
	Port     int
	Implicit bool // smtps://
	Username string
	Password string
	From     *mail.Address
	Timeout  time.Duration
	// TLS is the client's TLS configuration (tests trust their own CA);
	// nil verifies the server against the system's roots.
	TLS *tls.Config
}

// ParseSMTP reads --smtp-url and --mail-from.
func ParseSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--smtp-url: %w", err)
	}
	s := &SMTP{Host: u.Hostname(), Timeout: DefaultTimeout}
	switch u.Scheme {
	case "smtp":
		s.Port = 587
	case "smtps":
		s.Port, s.Implicit = 465, true
	default:
		return nil, fmt.Errorf("--smtp-url: the scheme must be smtp:// or smtps://, not %q", u.Scheme)
	}
	if s.Host == "" {
		return nil, fmt.Errorf("--smtp-url: no host")
	}
	if p := u.Port(); p != "" {
		if s.Port, err = strconv.Atoi(p); err != nil || s.Port < 1 || s.Port > 65535 {
			return nil, fmt.Errorf("--smtp-url: bad port %q", p)
		}
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	if s.From, err = ParseFrom(from); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseFrom reads --mail-from, "Name <address>" or a bare address; a name
// with a line break is refused, as it could add a header.
func ParseFrom(from string) (*mail.Address, error) {
	if strings.ContainsAny(from, "\r\n") {
		return nil, fmt.Errorf("--mail-from: must be one line")
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("--mail-from: %w", err)
	}
	return a, nil
}

// loopback reports whether host is this machine: the only place
// credentials may travel without TLS.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tlsPolicy is STARTTLS whenever offered; required when credentials
// would otherwise cross the network in clear.
func (s *SMTP) tlsPolicy() gomail.TLSPolicy {
	if s.Username != "" && !loopback(s.Host) {
		return gomail.TLSMandatory
	}
	return gomail.TLSOpportunistic
}

// Send delivers one message, its headers built by go-mail from values
// that can hold no line break (oneLine), so no name or subject adds a
// header.
func (s *SMTP) Send(ctx context.Context, o Outgoing) error {
	m := gomail.NewMsg()
	if err := m.FromFormat(oneLine(s.From.Name), s.From.Address); err != nil {
		return permanent(fmt.Errorf("from: %w", err))
	}
	if err := m.To(oneLine(o.To)); err != nil {
		return permanent(fmt.Errorf("recipient: %w", err))
	}
	m.Subject(oneLine(o.Subject))
	m.SetDate()
	m.SetMessageID()
	m.SetBodyString(gomail.TypeTextPlain, o.Text)
	m.AddAlternativeString(gomail.TypeTextHTML, o.HTML)
	opts := []gomail.Option{gomail.WithPort(s.Port), gomail.WithTimeout(s.Timeout)}
	tlsConf := &tls.Config{ServerName: s.Host, MinVersion: tls.VersionTLS12}
	if s.TLS != nil {
		tlsConf = s.TLS.Clone()
		if tlsConf.ServerName == "" {
			tlsConf.ServerName = s.Host
		}
	}
	opts = append(opts, gomail.WithTLSConfig(tlsConf))
	if s.Implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(s.tlsPolicy()))
	}
	if s.Username != "" {
		// The strongest mechanism the server offers; to a loopback relay
		// that may not offer TLS, PLAIN, which go-mail sends in clear only
		// to a local host.
		auth := gomail.SMTPAuthAutoDiscover
		if loopback(s.Host) {
			auth = gomail.SMTPAuthPlain
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(s.Username), gomail.WithPassword(s.Password))
	}
	c, err := gomail.NewClient(s.Host, opts...)
	if err != nil {
		return permanent(err)
	}
	return c.DialAndSendWithContext(ctx, m)
}

// oneLine replaces line breaks (and other control characters) with
// spaces: a header value stays one header.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
