package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
)

// An upload refused by its handler (here 409, the URL already used, and
// 403, a forged signature refused on the headers) reaches a client that
// sends its whole 8 MiB body before reading, as curl without Expect and
// most SDKs do: the server reads out the body it will not take before it
// closes, instead of resetting the connection under the answer. A client
// that asks first (Expect: 100-continue) is told to continue when the URL
// holds, fasthttp deciding that before the handler, and reads the
// refusal after its body.
func TestRefusedUploadAnswersReachClientsStillSending(t *testing.T) {
	e := newEnv(t)
	addr := testserver.Serve(t, e.app, handlers.LingerOnRefusal).Addr

	const size = 8 << 20
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", size)
	e.transfer(http.MethodPut, up.UploadURL, bytes.Repeat([]byte("a"), size)).expect(http.StatusOK)
	used := requestURI(t, up.UploadURL)
	forged := strings.Replace(used, "signature=", "signature=00", 1)

	cases := []struct {
		name, uri, expect string
		status            int
		code              models.Code
	}{
		{"used", used, "", http.StatusConflict, models.CodeConflict},
		{"forged", forged, "", http.StatusForbidden, models.CodeForbidden},
		{"used, asking to continue", used, "\r\nExpect: 100-continue", http.StatusConflict, models.CodeConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const clients = 12
			errs := make(chan error, clients)
			var wg sync.WaitGroup
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- sendWholeThenRead(addr, putHead(tc.uri, size)+tc.expect, size, tc.status, tc.code)
				}()
			}
			wg.Wait()
			close(errs)
			failed := 0
			for err := range errs {
				if err != nil {
					if failed++; failed <= 3 {
						t.Error(err)
					}
				}
			}
			if failed > 0 {
				t.Fatalf("%d of %d clients did not read the refusal", failed, clients)
			}
		})
	}
}

// sendWholeThenRead sends head and a body of size, then reads the answer
// and checks it is the envelope with status and code. With Expect in
// head it waits for 100 Continue first (or takes an early refusal).
func sendWholeThenRead(addr, head string, size, status int, code models.Code) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, head+"\r\n\r\n"); err != nil {
		return err
	}
	r := bufio.NewReader(conn)
	if strings.Contains(head, "Expect:") {
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			return fmt.Errorf("read the interim answer: %w", err)
		}
		if res.StatusCode != http.StatusContinue {
			return checkEnvelope(res, status, code)
		}
	}
	piece := make([]byte, 64<<10)
	for sent := 0; sent < size; sent += len(piece) {
		if _, err := conn.Write(piece); err != nil {
			return fmt.Errorf("send the body, %d bytes in: %w", sent, err)
		}
	}
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		return fmt.Errorf("read the answer: %w", err)
	}
	return checkEnvelope(res, status, code)
}

func checkEnvelope(res *http.Response, status int, code models.Code) error {
	defer res.Body.Close()
	var env struct {
		Error struct{ Code models.Code } `json:"error"`
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("read the answer's body: %w", err)
	}
	if err := json.Unmarshal(raw, &env); err != nil || res.StatusCode != status || env.Error.Code != code {
		return fmt.Errorf("answer %d %s, want %d %s", res.StatusCode, raw, status, code)
	}
	return nil
}
