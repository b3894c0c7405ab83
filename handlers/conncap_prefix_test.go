package handlers

import (
	"net"
	"net/netip"
	"testing"
)

// fakeListener hands out pipe connections that claim the given peers.
type fakeListener struct {
	net.Listener
	peers []string
}

type peerConn struct {
	net.Conn
	peer *net.TCPAddr
}

func (c peerConn) RemoteAddr() net.Addr { return c.peer }

func (l *fakeListener) Accept() (net.Conn, error) {
	peer := l.peers[0]
	l.peers = l.peers[1:]
	a, b := net.Pipe()
	_ = b.Close()
	return peerConn{Conn: a, peer: net.TCPAddrFromAddrPort(netip.MustParseAddrPort(peer))}, nil
}

// The connection cap counts an IPv6 client by its /64, as the rate limits
// do: one subscriber's /64 is one address, however many it rotates
// through; another /64 and IPv4 have caps of their own.
func TestConnectionCapCountsIPv6BySlash64(t *testing.T) {
	ln := LimitPerAddress(&fakeListener{peers: []string{
		"[2001:db8::1]:1000",
		"[2001:db8::2]:1000",
		"[2001:db8::ffff:3]:1000", // same /64: past the cap of 2
		"[2001:db8:0:1::1]:1000",  // the next /64: its own cap
		"[::ffff:192.0.2.1]:1000", // mapped IPv4 counts as 192.0.2.1
		"192.0.2.1:1000",
		"192.0.2.1:1001", // past the cap
	}}, 2)
	want := []bool{true, true, false, true, true, true, false}
	for i, counted := range want {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		_, isCounted := c.(*countedConn)
		if isCounted != counted {
			t.Errorf("connection %d from %s: counted %v, want %v", i, c.RemoteAddr(), isCounted, counted)
		}
	}
}
