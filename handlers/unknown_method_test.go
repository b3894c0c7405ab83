package handlers

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A method fiber does not know (PROPFIND, REPORT, QUERY) is answered
// without a route, but its body is read all the same: bodies are
// streamed, and whatever of one is left unread would be taken for the
// next request on the connection. A request hidden in the body past
// fasthttp's 8 KiB read-ahead, or in a chunk, is not answered; the
// request really sent after the body is.
func TestUnknownMethodBodyIsNeverTheNextRequest(t *testing.T) {
	addr := serve(t)
	hidden := "GET /api/v1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	next := "GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	for name, request := range map[string]string{
		"content-length": fmt.Sprintf("PROPFIND /x HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 16<<10+len(hidden)) +
			strings.Repeat("A", 16<<10) + hidden,
		"chunked": "QUERY /api/v1/instances HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(hidden), hidden),
	} {
		t.Run(name, func(t *testing.T) {
			statuses, last := pipeline(t, addr, request+next)
			if len(statuses) != 2 || statuses[0] < 400 || statuses[1] != http.StatusOK || !strings.Contains(last, "ok") {
				t.Fatalf("answers %v, last %q: want the unknown method's refusal and /livez's 200, nothing for its body", statuses, last)
			}
		})
	}
}

// pipeline writes requests on one connection and reads every answer
// until the server closes it: their statuses and the last one's body.
func pipeline(t *testing.T, addr, requests string) (statuses []int, last string) {
	t.Helper()
	r := sendRaw(t, addr, requests)
	for {
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			return statuses, last
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		statuses, last = append(statuses, res.StatusCode), string(body)
	}
}
