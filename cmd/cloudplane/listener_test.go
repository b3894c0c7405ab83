package main

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// fakeListener fails its first accepts with errs, then accepts one pipe.
type fakeListener struct {
	errs []error
	net.Listener
}

func (f *fakeListener) Accept() (net.Conn, error) {
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	c, _ := net.Pipe()
	return c, nil
}

func (f *fakeListener) Close() error { return nil }

// Running out of descriptors is waited out with a growing, capped delay
// instead of ending Serve (fasthttp returns any accept error but a
// timeout); other errors still end it.
func TestAcceptRetriesWhenOutOfDescriptors(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	enfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.ENFILE)}
	errs := []error{emfile, emfile, enfile}
	for range 10 {
		errs = append(errs, emfile)
	}
	l := newRetryListener(&fakeListener{errs: errs}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var slept []time.Duration
	l.sleep = func(d time.Duration, _ <-chan struct{}) { slept = append(slept, d) }
	c, err := l.Accept()
	if err != nil || c == nil {
		t.Fatalf("accept after transient errors: %v", err)
	}
	if len(slept) != len(errs) || slept[0] != minAcceptDelay || slept[1] != 2*minAcceptDelay || slept[len(slept)-1] != maxAcceptDelay {
		t.Fatalf("backoff %v", slept)
	}

	fatal := errors.New("bad listener")
	l = newRetryListener(&fakeListener{errs: []error{fatal}}, slog.Default())
	if _, err := l.Accept(); !errors.Is(err, fatal) {
		t.Fatalf("permanent error: %v", err)
	}
}

// Closing the listener ends a backoff at once, so shutdown is not held.
func TestAcceptBackoffEndsOnClose(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	errs := make([]error, 1000)
	for i := range errs {
		errs[i] = emfile
	}
	l := newRetryListener(&fakeListener{errs: errs}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := make(chan error, 1)
	go func() { _, err := l.Accept(); done <- err }()
	_ = l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("accept after close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("accept still backing off after close")
	}
}

func TestConnectionCapFitsTheDescriptorLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	got, err := connectionCap(1 << 30)
	if err != nil || got != int(lim.Cur)-fdReserve {
		t.Fatalf("cap %d, %v; limit %d", got, err, lim.Cur)
	}
	if got, _ := connectionCap(10); got != 10 {
		t.Fatalf("a cap below the limit changed: %d", got)
	}
}
