package handlers

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A body past the limit is refused before it is read, and the client,
// which is still sending it, reads the JSON answer instead of a reset:
// the server reads out the rest before closing. Without that, nearly
// every one of these requests ends in "connection reset by peer".
func TestOversizedBodyAnswerReachesTheClient(t *testing.T) {
	addr := serve(t)
	head := "POST /api/v1/filesystems HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
		itoa(2*BodyLimit) + "\r\n\r\n"
	const clients, rounds = 8, 8
	errs := make(chan error, clients*rounds)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				if err := sendOversized(addr, head, 2*BodyLimit); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 3 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d clients did not read the answer", failed, clients*rounds)
	}

	// The read-out is bounded: a client that stops sending without
	// closing gets the answer, then the server's close...
	idle, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	_ = idle.SetDeadline(time.Now().Add(4 * lingerTimeout))
	if _, err := io.WriteString(idle, head+strings.Repeat("x", 100<<10)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(idle); err != nil {
		t.Fatalf("the server did not close a silent connection it had refused: %v", err)
	}

	// ...and one that never stops sending is cut off (its writes fail)
	// well before the test's own deadline.
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(4 * lingerTimeout))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	piece := make([]byte, 64<<10)
	for {
		_, err := conn.Write(piece)
		if err == nil {
			continue
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the server still read a body it had refused after %s", 4*lingerTimeout)
		}
		break
	}
}

// sendOversized writes head and a body of size, in pieces as a client
// streaming a file does, without reading before it has sent it all; then
// it reads the answer, which must be the 400 envelope.
func sendOversized(addr, head string, size int) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, head); err != nil {
		return fmt.Errorf("send the head: %w", err)
	}
	piece := make([]byte, 64<<10)
	for sent := 0; sent < size; sent += len(piece) {
		if _, err := conn.Write(piece); err != nil {
			return fmt.Errorf("send the body, %d bytes in: %w", sent, err)
		}
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("read answer body: %w", err)
	}
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), `"global/invalid-parameters"`) ||
		!strings.Contains(string(answer), res.Header.Get("X-Request-Id")) {
		return fmt.Errorf("answer %d: %s", res.StatusCode, answer)
	}
	return nil
}
