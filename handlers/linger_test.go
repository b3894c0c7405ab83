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
