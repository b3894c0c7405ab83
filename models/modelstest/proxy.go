package modelstest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy a test puts in front of its database to take the
// database away and bring it back: Blackhole keeps connections open but
// carries nothing (a server that stopped answering), Refuse drops every
// connection and closes new ones at once (a server that is down), Forward
// carries traffic again.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cond  *sync.Cond
	mode  proxyMode
	conns map[net.Conn]struct{}
}

type proxyMode int

const (
	proxyForward proxyMode = iota
	proxyBlackhole
	proxyRefuse
)

// NewProxy listens on a port of its own on 127.0.0.1 and forwards to
// target (host:port); it stops at cleanup.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	go p.serve()
	tb.Cleanup(func() {
		_ = ln.Close()
		p.set(proxyRefuse)
	})
	return p
}

// ProxiedDSN rewrites a postgres:// dsn to reach its server through a new
// Proxy.
func ProxiedDSN(tb testing.TB, dsn string) (string, *Proxy) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	p := NewProxy(tb, u.Host)
	u.Host = p.ln.Addr().String()
	return u.String(), p
}

func (p *Proxy) Blackhole() { p.set(proxyBlackhole) }
func (p *Proxy) Refuse()    { p.set(proxyRefuse) }
func (p *Proxy) Forward()   { p.set(proxyForward) }

func (p *Proxy) set(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	if m == proxyRefuse {
		for c := range p.conns {
			_ = c.Close()
		}
	}
	p.cond.Broadcast()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *Proxy) handle(client net.Conn) {
	if !p.track(client) || !p.await() {
		_ = client.Close()
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(server) {
		_ = client.Close()
		return
	}
	go p.pipe(server, client)
	p.pipe(client, server)
}

// track registers c, unless the proxy is refusing.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == proxyRefuse {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// await blocks while the proxy is a black hole and reports whether
// traffic may flow.
func (p *Proxy) await() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.mode == proxyBlackhole {
		p.cond.Wait()
	}
	return p.mode == proxyForward
}

// pipe copies from src to dst, holding each chunk while the proxy is a
// black hole; when either side ends, both are closed.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.drop(dst, src)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.await() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) drop(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}
