package mail

import (
	"context"
	"crypto/tls"
	"errors"
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
// smtp://user:pass@host:587 uses STARTTLS, smtps://host:465 implicit TLS.
// Messages carry links that are credentials, so nothing goes in clear:
// to any host but a loopback address, smtp:// (with or without a user)
// requires STARTTLS and fails the attempt, before a byte of mail or
// credentials is sent, when the server does not offer it. A loopback
// relay uses STARTTLS when offered. The one opt-out, for a relay on a
// trusted network that cannot do TLS, is smtp://host?tls=none, which
// Insecure reports so serve warns at start.
type SMTP struct {
	Host     string
	Port     int
	Implicit bool // smtps://
	Insecure bool // smtp://…?tls=none: cleartext allowed to a remote host
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
		// url.Parse's error quotes the URL, password included.
		return nil, fmt.Errorf("--smtp-url: not a valid URL (smtp://user:password@host:port)")
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
	switch tls := u.Query().Get("tls"); tls {
	case "":
	case "none":
		if s.Implicit {
			return nil, fmt.Errorf("--smtp-url: tls=none does not go with smtps://")
		}
		s.Insecure = true
	default:
		return nil, fmt.Errorf("--smtp-url: tls=%q: the only option is tls=none", tls)
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

// tlsPolicy requires STARTTLS to any host but a loopback one, unless
// tls=none; credentials never go in clear to a remote host, whatever the
// option.
func (s *SMTP) tlsPolicy() gomail.TLSPolicy {
	if loopback(s.Host) || (s.Insecure && s.Username == "") {
		return gomail.TLSOpportunistic
	}
	return gomail.TLSMandatory
}

// Send delivers one message, its headers built by go-mail from values
// that can hold no line break (oneLine), so no name or subject adds a
// header.
func (s *SMTP) Send(ctx context.Context, o Outgoing) error {
	m := gomail.NewMsg()
	if err := m.FromFormat(oneLine(s.From.Name), s.From.Address); err != nil {
		return permanent(fmt.Errorf("from: %w", err))
	}
	if oneLine(o.To) != o.To {
		return permanent(fmt.Errorf("recipient: a control character in %q", o.To))
	}
	if err := m.To(o.To); err != nil {
		return permanent(fmt.Errorf("recipient: %w", err))
	}
	m.Subject(oneLine(o.Subject))
	m.SetDate()
	m.SetMessageID()
	m.SetBodyString(gomail.TypeTextPlain, o.Text)
	m.AddAlternativeString(gomail.TypeTextHTML, o.HTML)
	tlsConf := &tls.Config{ServerName: s.Host, MinVersion: tls.VersionTLS12}
	if s.TLS != nil {
		tlsConf = s.TLS.Clone()
		if tlsConf.ServerName == "" {
			tlsConf.ServerName = s.Host
		}
	}
	// go-mail bounds each stage by Timeout but the whole conversation by
	// nothing; the deadline of ctx (the worker's send budget) bounds it.
	// With a dial function, go-mail leaves implicit TLS to it.
	var implicit *tls.Config
	if s.Implicit {
		implicit = tlsConf
	}
	opts := []gomail.Option{gomail.WithPort(s.Port), gomail.WithTimeout(s.Timeout), gomail.WithTLSConfig(tlsConf),
		gomail.WithDialContextFunc(deadlineDialer(ctx, implicit))}
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
		if loopback(s.Host) || s.Implicit { // implicit: go-mail, not told it is TLS, would not discover PLAIN
			auth = gomail.SMTPAuthPlain
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(s.Username), gomail.WithPassword(s.Password))
	}
	c, err := gomail.NewClient(s.Host, opts...)
	if err != nil {
		return permanent(err)
	}
	err = c.DialAndSendWithContext(ctx, m)
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 && se.ErrorCode() < 600 {
		// A 5xx reply: the server refused the message for good. (go-mail
		// also calls a broken connection non-temporary; that is retried.)
		return permanent(err)
	}
	return err
}

// deadlineDialer dials connections whose every deadline is capped by
// ctx's and that are closed when ctx ends, so no stage of the SMTP
// conversation outlives ctx; with implicit, it speaks TLS from the start.
func deadlineDialer(ctx context.Context, implicit *tls.Config) gomail.DialContextFunc {
	return func(dctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(dctx, network, addr)
		if err != nil {
			return nil, err
		}
		hard, ok := ctx.Deadline()
		if !ok {
			hard = time.Now().Add(24 * time.Hour)
		}
		if err := conn.SetDeadline(hard); err != nil {
			conn.Close()
			return nil, err
		}
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		c := &capped{Conn: conn, hard: hard, stop: stop}
		if implicit == nil {
			return c, nil
		}
		tc := tls.Client(c, implicit)
		if err := tc.HandshakeContext(dctx); err != nil {
			c.Close()
			return nil, err
		}
		return tc, nil
	}
}

// capped is a connection whose deadlines never pass hard.
type capped struct {
	net.Conn
	hard time.Time
	stop func() bool
}

func (c *capped) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(c.hard) {
		return c.hard
	}
	return t
}

func (c *capped) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *capped) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *capped) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }
func (c *capped) Close() error                       { c.stop(); return c.Conn.Close() }

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
