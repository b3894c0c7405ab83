package api

import (
	"io"
	"net"
	"time"
)

// DefaultUploadProgressTimeout is how long an upload's body may go without
// a byte arriving when UploadConfig leaves it unset: a stalled client
// gives its turn back after this, not after the whole body's deadline.
const DefaultUploadProgressTimeout = 30 * time.Second

// progressDeadline moves the connection's read deadline before each read
// of the body to now + timeout, never past until: a client must keep
// sending to keep its turn, and the whole body ends by until. (The server
// set one read deadline for the whole body; reads do not see a context.)
type progressDeadline struct {
	body    io.Reader
	conn    net.Conn
	timeout time.Duration
	until   time.Time
}

func (p *progressDeadline) Read(b []byte) (int, error) {
	deadline := time.Now().Add(p.timeout)
	if deadline.After(p.until) {
		deadline = p.until
	}
	if err := p.conn.SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	return p.body.Read(b)
}
