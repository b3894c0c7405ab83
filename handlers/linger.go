package handlers

import (
	"net"
	"sync/atomic"
	"time"
)

// LingerOnRefusal wraps ln so that a connection the server closes while
// the client is still sending (a body past its limit, a request refused
// before its body was read) is read out before it is closed. Closing a
// socket with unread input makes the kernel answer with a reset, and a
// reset makes the client's kernel drop the answer it had not yet read:
// the client saw "connection reset" instead of the JSON error. So the
// server answers, then reads and discards what still comes, as net/http
// and Apache's lingering close do, and only then closes.
//
// The read-out ends at the client's end of stream, after lingerLimit
// bytes, after lingerQuiet without input (a client that sent everything
// and waits for the close; the write side cannot be shut instead, since
// the connection may come wrapped by netutil.LimitListener, which hides
// CloseWrite) or after lingerTimeout in all. A client that keeps sending
// past that gets the reset it was going to get anyway.
func LingerOnRefusal(ln net.Listener) net.Listener { return lingeringListener{ln} }

const (
	lingerLimit   = 4 * BodyLimit
	lingerQuiet   = 500 * time.Millisecond
	lingerTimeout = 2 * time.Second
)

type lingeringListener struct{ net.Listener }

func (l lingeringListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &lingeringConn{Conn: c}, nil
}

// lingeringConn reads out its input on Close once marked by lingerOnClose:
// up to lingerBytes, 0 meaning not at all.
type lingeringConn struct {
	net.Conn
	lingerBytes atomic.Int64
}

func (c *lingeringConn) Close() error {
	if limit := c.lingerBytes.Swap(0); limit > 0 {
		c.readOut(limit)
	}
	return c.Conn.Close()
}

func (c *lingeringConn) readOut(limit int64) {
	end := time.Now().Add(lingerTimeout)
	buf := make([]byte, 32<<10)
	for read := int64(0); read < limit; {
		deadline := time.Now().Add(lingerQuiet)
		if deadline.After(end) {
			deadline = end
		}
		if c.Conn.SetReadDeadline(deadline) != nil {
			return
		}
		n, err := c.Conn.Read(buf)
		if err != nil {
			return
		}
		read += int64(n)
	}
}

// lingerOnClose marks conn to be read out, up to limit bytes (never less
// than lingerLimit), when the server closes it; a connection that did not
// come through LingerOnRefusal is left as it is.
func lingerOnClose(conn net.Conn, limit int) {
	if c, ok := conn.(*lingeringConn); ok {
		c.lingerBytes.Store(int64(max(limit, lingerLimit)))
	}
}

// unwrapLingering is the connection LingerOnRefusal wrapped.
func unwrapLingering(conn net.Conn) net.Conn {
	if c, ok := conn.(*lingeringConn); ok {
		return c.Conn
	}
	return conn
}
