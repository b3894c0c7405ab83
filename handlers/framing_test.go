package handlers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"cloudplane/models/modelstest"
)

// A request whose body length is stated twice is refused, 400 in the JSON
// envelope, and its connection closed: the request a proxy reading the
// other length would have hidden in its body is never run. Each case
// smuggles a filesystem creation, and afterwards no filesystem exists.
func TestAmbiguousBodyLengthIsRefusedAndNothingIsSmuggled(t *testing.T) {
	store := modelstest.Open(t)
	owner, key := modelstest.Owner(t, store, "owner@example.com")
	addr := serveStore(t, store)
	smuggled := func(name string) string {
		body := `{"name": "` + name + `", "region": "us-east-1"}`
		return "POST /api/v1/filesystems HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
			"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	}
	head := "POST /api/v1/regions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key + "\r\n"
	cases := []struct{ name, req string }{
		{"two lengths, the first covering the smuggled request", func() string {
			s := smuggled("firstlength")
			return head + "Content-Length: " + itoa(len(s)) + "\r\nContent-Length: 0\r\n\r\n" + s
		}()},
		{"two lengths, the last covering it", func() string {
			s := smuggled("lastlength")
			return head + "Content-Length: 0\r\ncontent-length: " + itoa(len(s)) + "\r\n\r\n" + s
		}()},
		{"two identical lengths", head + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}" + smuggled("identical")},
		{"length and chunked", func() string {
			s := "0\r\n\r\n" + smuggled("chunked")
			return head + "Content-Length: " + itoa(len(s)) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + s
		}()},
		{"chunked and length", head + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + smuggled("chunkedfirst")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, body, rest := rawExchange(t, addr, tc.req)
			expectEnvelope(t, res, body, http.StatusBadRequest)
			if !res.Close {
				t.Errorf("the connection was kept open (Connection: %q)", res.Header.Get("Connection"))
			}
			if len(rest) > 0 {
				t.Fatalf("a second answer followed the refusal: %q", rest)
			}
		})
	}
	fss, err := store.Filesystems(context.Background(), owner.Actor())
	if err != nil {
		t.Fatal(err)
	}
	if len(fss) != 0 {
		t.Fatalf("a smuggled request ran: %d filesystems exist, the first %q", len(fss), fss[0].Name)
	}
	// One length, stated once, is served as before.
	if res, body, _ := rawExchange(t, addr, smuggled("plain")); res.StatusCode != http.StatusOK {
		t.Fatalf("a well-framed request: %d %s", res.StatusCode, body)
	}
}

// rawExchange writes req on a new connection, reads the first answer,
// then everything the server sends until it closes the connection.
func rawExchange(t *testing.T, addr, req string) (*http.Response, []byte, []byte) {
	t.Helper()
	br := sendRaw(t, addr, req)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(br)
	if err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatal(fmt.Errorf("read after the answer: %w", err))
	}
	return res, body, rest
}

// sendRaw writes req, as it is, on a new connection that is closed when
// the test ends and gives up after 10 s, and returns its reader.
func sendRaw(t *testing.T, addr, req string) *bufio.Reader {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	return bufio.NewReader(conn)
}

// BenchmarkAmbiguousFraming is the check every request with a body pays
// in HeaderReceived: a scan of its raw head, without allocating.
func BenchmarkAmbiguousFraming(b *testing.B) {
	var h fasthttp.RequestHeader
	head := "POST /api/v1/filesystems HTTP/1.1\r\nHost: api.example.com\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n" +
		"Authorization: Bearer cpk_00000000_0000000000000000000000000000000000000000000000000000000000000000\r\n" +
		"Content-Type: application/json\r\nContent-Length: 42\r\n\r\n"
	if err := h.Read(bufio.NewReader(strings.NewReader(head))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ambiguousFraming(&h) {
			b.Fatal("one Content-Length is not ambiguous")
		}
	}
}
