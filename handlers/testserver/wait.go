package testserver

import (
	"net"
	"testing"
	"time"
)

// pollInterval is how often waits check their condition.
const pollInterval = 10 * time.Millisecond

// Eventually checks condition every few milliseconds until it holds, and
// fails the test with what it waited for when it does not hold within
// deadline. It is for state another goroutine or process changes; a test
// that can be told (a channel, a callback) waits on that instead.
func Eventually(tb testing.TB, deadline time.Duration, condition func() bool, what string) {
	tb.Helper()
	if !Within(deadline, condition) {
		tb.Fatalf("waited %s for %s: it did not happen", deadline, what)
	}
}

// Within is Eventually reporting whether condition held in time instead
// of failing the test, for code that must not call Fatal (another
// goroutine, a suite's setup).
func Within(deadline time.Duration, condition func() bool) bool {
	end := time.Now().Add(deadline)
	for !condition() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(pollInterval)
	}
	return true
}

// RefusedAddress returns a loopback address ("127.0.0.1:<port>") nothing
// listens on: a connection to it is refused at once. The port was bound
// and released, so it is not one the test machine uses, and the kernel
// hands out ports in turn, not soon this one again.
func RefusedAddress(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatal(err)
	}
	return addr
}
