package handlers

import (
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
)

// LimitPerAddress caps the connections one client address, IPv4 or IPv6,
// holds open at max (0: no cap). fasthttp's MaxConnsPerIP counts IPv4
// only and answers a plain-text 429 before reading the request; here a
// connection past the cap is served one answer, a 429 in the shape its
// request expects (the JSON envelope under /api/, with Retry-After), and
// closed. It does not count against the cap, and has overCapGrace to send
// its request.
//
// An IPv6 client is counted by its /64, as the rate limits count it
// (ratelimit.AddressPrefix). The address is the connection's peer: behind a proxy, give the proxy's
// connections room with a larger cap.
func LimitPerAddress(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &perAddressListener{Listener: ln, max: max, open: map[netip.Prefix]int{}}
}

// overCapGrace bounds how long a connection past the cap may take to send
// the request it is refused on: it is one of many from an address that
// already holds its share, so it waits for no read timeout.
const overCapGrace = 2 * time.Second

// overCapRetryAfter is the Retry-After of a refused connection, in
// seconds: the time another of the address's connections may take to end.
const overCapRetryAfter = 1

type perAddressListener struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open map[netip.Prefix]int
}

func (l *perAddressListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	addr, ok := peerAddr(c)
	if !ok {
		return c, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr] >= l.max {
		_ = c.SetReadDeadline(time.Now().Add(overCapGrace))
		return &overCapConn{Conn: c, until: time.Now().Add(overCapGrace)}, nil
	}
	l.open[addr]++
	return &countedConn{Conn: c, release: func() { l.release(addr) }}, nil
}

func (l *perAddressListener) release(addr netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[addr]--; l.open[addr] <= 0 {
		delete(l.open, addr)
	}
}

// peerAddr is the part of c's remote address that the cap counts.
func peerAddr(c net.Conn) (netip.Prefix, bool) {
	tcp, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}, false
	}
	return ratelimit.AddressPrefix(tcp.AddrPort().Addr()), true
}

// countedConn gives its address's slot back once closed.
type countedConn struct {
	net.Conn
	closing sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.closing.Do(c.release)
	return c.Conn.Close()
}

// overCapConn is a connection past its address's cap. The server sets its
// read deadline for each request; it never reaches past until.
type overCapConn struct {
	net.Conn
	until time.Time
}

func (c *overCapConn) SetReadDeadline(t time.Time) error {
	if t.IsZero() || t.After(c.until) {
		t = c.until
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *overCapConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

// refuseOverCap answers a request on a connection past its address's cap
// with 429 and closes the connection.
func refuseOverCap(c *fiber.Ctx) error {
	if _, over := unwrapLingering(c.Context().Conn()).(*overCapConn); !over {
		return c.Next()
	}
	c.Context().SetConnectionClose()
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(overCapRetryAfter))
	return errTooManyConnections
}

var errTooManyConnections = &models.Error{Code: models.CodeRateLimited,
	Message:    "Too many connections from this address",
	Suggestion: "Close idle connections or reuse them, wait for the number of seconds in the Retry-After header, then try again"}
