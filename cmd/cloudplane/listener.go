package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/netutil"
)

// listen opens the server's listener: at most maxConns connections open
// at once (more wait in the kernel's accept queue, costing no descriptor
// here), and an accept that fails for lack of descriptors or memory waits
// and tries again instead of ending Serve, which fasthttp does for any
// accept error but a timeout.
func listen(addr string, maxConns int, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return netutil.LimitListener(newRetryListener(ln, log), maxConns), nil
}

// fdReserve is what the process keeps for itself beside client
// connections: the database pool, the webhook workers' connections, the
// log, the debug listener.
const fdReserve = 256

// connectionCap bounds --max-connections by the descriptors the process
// may open. Go raises the soft RLIMIT_NOFILE to the hard limit at start
// (syscall's init), so the hard limit is what there is.
func connectionCap(want int) (int, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<30 {
		return want, nil
	}
	avail := int(lim.Cur) - fdReserve
	if avail < 1 {
		return 0, fmt.Errorf("--max-connections: the file descriptor limit (%d) leaves no room for connections", lim.Cur)
	}
	return min(want, avail), nil
}

// retryListener retries accept errors that pass (EMFILE, ENFILE, ENOBUFS,
// ENOMEM, ECONNABORTED) after a capped exponential backoff, as net/http's
// Server does, logging them at most once per logEvery.
type retryListener struct {
	net.Listener
	log   *slog.Logger
	sleep func(time.Duration, <-chan struct{})

	closeOnce sync.Once
	done      chan struct{}
	lastLog   time.Time
	missed    int
}

const (
	minAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay = time.Second
	logEvery       = 10 * time.Second
)

func newRetryListener(ln net.Listener, log *slog.Logger) *retryListener {
	return &retryListener{Listener: ln, log: log, sleep: sleepOrDone, done: make(chan struct{})}
}

// Accept is called from one goroutine (the server's accept loop), so the
// log state needs no lock.
func (l *retryListener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil || !retryable(err) {
			return c, err
		}
		delay = min(max(2*delay, minAcceptDelay), maxAcceptDelay)
		l.missed++
		if now := time.Now(); now.Sub(l.lastLog) >= logEvery {
			l.log.Warn("accept failed; retrying", "err", err, "retry_in", delay, "failures", l.missed)
			l.lastLog, l.missed = now, 0
		}
		l.sleep(delay, l.done)
		select {
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
	}
}

func (l *retryListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func retryable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

func sleepOrDone(d time.Duration, done <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-done:
	}
}
