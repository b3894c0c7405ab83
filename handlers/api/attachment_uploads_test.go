package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/api/apitest"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// answerWait is how long a refusal may take to come. A server that reads
// (or waits for) the announced body first answers only after its read
// timeout, minutes later.
const answerWait = 5 * time.Second

// rawAnswer is what a server answered on a raw connection.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
	closed bool // the server closed the connection after answering
}

// rawPut sends head (a request line and headers, without the blank line)
// and then body, which may be much shorter than the Content-Length in
// head, and reads the answer.
func rawPut(t *testing.T, base, head, body string) rawAnswer {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Written aside: a server that refuses the body does not read it, and
	// a body larger than the socket's buffers would block.
	go func() { _, _ = io.WriteString(conn, head+"\r\n\r\n"+body) }()
	_ = conn.SetReadDeadline(time.Now().Add(answerWait))
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", answerWait, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadByte()
	return rawAnswer{status: res.StatusCode, header: res.Header, body: raw, closed: errors.Is(err, io.EOF)}
}

// expectEnvelope checks an answer is the contract's error envelope with
// code, its request id the X-Request-Id header's.
func (a rawAnswer) expectEnvelope(t *testing.T, status int, code models.Code) string {
	t.Helper()
	var env struct {
		Error struct {
			Code      models.Code `json:"code"`
			Message   string      `json:"message"`
			RequestID string      `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil || a.status != status || env.Error.Code != code ||
		env.Error.RequestID == "" || env.Error.RequestID != a.header.Get("X-Request-Id") {
		t.Fatalf("answer %d %s, want %d %s in the envelope: %v", a.status, a.body, status, code, err)
	}
	return env.Error.Message
}

func putHead(uri string, length int) string {
	return fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: %d", uri, length)
}

func requestURI(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// A PUT whose URL is forged, edited or expired is refused (403, the JSON
// envelope) on its headers alone: the answer comes while the announced
// 25 MiB have not been sent, and the connection is closed, so the server
// never reads them nor keeps a buffer for them.
func TestForgedUploadRefusedBeforeItsBody(t *testing.T) {
	e := newEnv(t)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", 4)
	uri := requestURI(t, up.UploadURL)
	edited := strings.Replace(uri, "size=4", fmt.Sprintf("size=%d", models.MaxAttachmentSize), 1)
	forged := fmt.Sprintf("/attachments/%s?expires=%d&signature=00&size=%d", models.NewID(),
		e.clock.Now().Add(time.Hour).Unix(), models.MaxAttachmentSize)
	cases := []struct{ name, uri, why string }{
		{"forged", forged, "signature does not match"},
		{"edited size", edited, "signature does not match"},
		{"over the cap", fmt.Sprintf("/attachments/%s?expires=1&signature=00&size=%d", models.NewID(), int64(1)<<40), "signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := rawPut(t, base, putHead(tc.uri, models.MaxAttachmentSize), "x")
			if msg := a.expectEnvelope(t, http.StatusForbidden, models.CodeForbidden); !strings.Contains(msg, tc.why) {
				t.Errorf("message %q, want it to say %q", msg, tc.why)
			}
			if !a.closed {
				t.Error("the connection stayed open: the announced body could be read as a next request")
			}
		})
	}
	t.Run("asking to continue", func(t *testing.T) {
		// curl asks before sending a large body; the answer is the refusal,
		// not an invitation to send it.
		a := rawPut(t, base, putHead(forged, models.MaxAttachmentSize)+"\r\nExpect: 100-continue", "")
		a.expectEnvelope(t, http.StatusForbidden, models.CodeForbidden)
	})
	t.Run("expired", func(t *testing.T) {
		e.clock.Advance(models.AttachmentUploadLifetime)
		a := rawPut(t, base, putHead(uri, 4), "")
		if msg := a.expectEnvelope(t, http.StatusForbidden, models.CodeForbidden); !strings.Contains(msg, "expired") {
			t.Errorf("message %q", msg)
		}
	})
}

// A chunked upload that goes past its declared size is 413 in the JSON
// envelope, and stores nothing; one within its size is stored, and reads
// back equal.
func TestChunkedUploadPastItsSize(t *testing.T) {
	e := newEnv(t)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", 4)
	chunked := func(uri string, chunks ...string) string {
		var b strings.Builder
		for _, c := range chunks {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(c), c)
		}
		return b.String() + "0\r\n\r\n"
	}
	head := "PUT " + requestURI(t, up.UploadURL) + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
	a := rawPut(t, base, head, chunked("", "abc", "def"))
	if msg := a.expectEnvelope(t, http.StatusRequestEntityTooLarge, models.CodeInvalidParameters); !strings.Contains(msg, "larger than the 4 bytes") {
		t.Errorf("message %q", msg)
	}
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters) // nothing was stored

	if a := rawPut(t, base, head, chunked("", "ab", "cd")); a.status != http.StatusOK {
		t.Fatalf("within its size: %d %s", a.status, a.body)
	}
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
	if got := e.download(ticket, up.AttachmentID); string(got) != "abcd" {
		t.Fatalf("read back %q", got)
	}
}

// download reads an attachment's bytes through its download URL.
func (e *env) download(ticket, id string) []byte {
	e.t.Helper()
	var dl struct {
		DownloadURL string `json:"download_url"`
	}
	e.do(http.MethodGet, attachmentsPath(ticket)+"/"+id+"/download", nil).expect(http.StatusOK).data(&dl)
	return e.transfer(http.MethodGet, dl.DownloadURL, nil).expect(http.StatusOK).Body
}

// An upload URL takes one body: once it has received its bytes, another
// PUT is refused (409) before its body is read (past the first 8 KiB the
// server reads with the headers), whether or not the attachment was
// completed.
func TestUploadURLTakesOneBody(t *testing.T) {
	e := newEnv(t)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	const size = 64 << 10
	up := e.initiate(ticket, "a.txt", size)
	first := bytes.Repeat([]byte("abcd"), size/4)
	e.transfer(http.MethodPut, up.UploadURL, first).expect(http.StatusOK)
	again := rawPut(t, base, putHead(requestURI(t, up.UploadURL), size), strings.Repeat("w", 8<<10))
	if msg := again.expectEnvelope(t, http.StatusConflict, models.CodeConflict); !strings.Contains(msg, "takes no more") {
		t.Errorf("message %q", msg)
	}
	if !again.closed {
		t.Error("the connection stayed open: the rest of the body would be read as a next request")
	}
	e.transfer(http.MethodPut, up.UploadURL, bytes.Repeat([]byte("w"), size)).expectError(http.StatusConflict, models.CodeConflict)
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
	if got := e.download(ticket, up.AttachmentID); !bytes.Equal(got, first) {
		t.Fatalf("read back %q: a later PUT replaced the bytes", got)
	}
}

// Every PUT to an upload URL counts against the account's rate limit, a
// refused one (409) too, and one that is received spends its declared
// size (in whole MiB) from the account's upload budget; over either it is
// 429 with Retry-After, and stores nothing.
func TestUploadsCountAgainstTheAccountsLimits(t *testing.T) {
	t.Run("rate limit", func(t *testing.T) {
		general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Hour, Burst: 6})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, withLimits(api.Limits{General: general}))
		ticket := e.createTicket(incidentBody)                                                                       // 1
		one, two := e.initiate(ticket, "a", 1), e.initiate(ticket, "b", 1)                                           // 2, 3
		e.transfer(http.MethodPut, one.UploadURL, []byte("a")).expect(http.StatusOK)                                 // 4
		e.transfer(http.MethodPut, one.UploadURL, []byte("a")).expectError(http.StatusConflict, models.CodeConflict) // 5
		e.transfer(http.MethodPut, one.UploadURL, []byte("a")).expectError(http.StatusConflict, models.CodeConflict) // 6
		r := e.transfer(http.MethodPut, two.UploadURL, []byte("b")).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
		if r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Errorf("429 without its headers: %v", r.Header)
		}
	})
	t.Run("byte budget", func(t *testing.T) {
		budget, err := ratelimit.NewMemoryBudget(ratelimit.Quota{Rate: time.Hour, Burst: 3})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, withLimits(api.Limits{UploadMiB: budget}))
		ticket := e.createTicket(incidentBody)
		big := e.initiate(ticket, "big", 2<<20+1) // 3 MiB, rounded up: the whole budget
		small := e.initiate(ticket, "small", 1)
		e.transfer(http.MethodPut, big.UploadURL, bytes.Repeat([]byte("x"), 2<<20+1)).expect(http.StatusOK)
		r := e.transfer(http.MethodPut, small.UploadURL, []byte("y")).expectError(http.StatusTooManyRequests, models.CodeRateLimited)
		if r.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After: %v", r.Header)
		}
		e.do(http.MethodPost, attachmentsPath(ticket)+"/"+small.AttachmentID+"/complete", nil).
			expectError(http.StatusBadRequest, models.CodeInvalidParameters) // nothing was stored
	})
}

// Uploads in flight are capped: while MaxUploads bodies are being
// received, another waits its turn until its request's deadline, then is
// 503 with Retry-After in the envelope. Many clients at once each either
// succeed or get that 503 (never another 5xx), and retried, all succeed
// with their bytes read back equal.
func TestUploadsInFlightAreCapped(t *testing.T) {
	store := modelstest.Open(t)
	owner, key := modelstest.Owner(t, store, "owner@example.com")
	app := handlers.New(handlers.Config{Store: store, MaxUploads: 2, RequestTimeout: 2 * time.Second})
	e := &env{t: t, app: app, store: store, spec: apitest.Optional(t), own: apitest.Cloudplane(t), owner: owner, key: key}
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	const size = 3<<20 + 5 // a few chunks, the last one short
	const clients = 12
	ups := make([]initiated, clients+2)
	for i := range ups {
		ups[i] = e.initiate(ticket, fmt.Sprintf("f%d", i), size)
	}
	content := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, size) }

	// Two slow clients hold both turns: each sent its head and the first
	// 16 KiB (the server reads up to 8 KiB before routing).
	var held []net.Conn
	for _, up := range ups[clients:] {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "%s\r\n\r\n%s", putHead(requestURI(t, up.UploadURL), size), strings.Repeat("x", 16<<10))
		held = append(held, conn)
	}
	// Poll until both are being received: a third then waits and is 503.
	var a rawAnswer
	testserver.Eventually(t, 10*time.Second, func() bool {
		a = rawPut(t, base, putHead(requestURI(t, ups[0].UploadURL), size), string(content(0)))
		if a.status == http.StatusOK { // accepted before the slow ones got their turns: use another
			ups[0] = e.initiate(ticket, "f0", size)
			return false
		}
		return true
	}, "a third upload refused while two hold every turn")
	if a.status != http.StatusServiceUnavailable {
		t.Fatalf("with every turn taken: %d %s, want 503", a.status, a.body)
	}
	a.expectEnvelope(t, http.StatusServiceUnavailable, models.CodeProviderUnavailable)
	if a.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	for _, conn := range held {
		_ = conn.Close()
	}

	// Many at once: each succeeds or waits out its turn, then retries.
	putAllRetrying(t, base, ups[:clients], content, 20)
	for i, up := range ups[:clients] {
		e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
		if got := e.download(ticket, up.AttachmentID); !bytes.Equal(got, content(i)) {
			t.Fatalf("client %d: read back %d bytes, not what it sent", i, len(got))
		}
	}
}

// putAllRetrying sends every upload at once, each to its URL, retrying
// a 503 with Retry-After up to retries times; anything else but 200 fails
// the test.
func putAllRetrying(t *testing.T, base string, ups []initiated, content func(i int) []byte, retries int) {
	t.Helper()
	var wg sync.WaitGroup
	problems := make(chan string, len(ups))
	for i, up := range ups {
		wg.Go(func() {
			for attempt := 0; ; attempt++ {
				res, err := http.DefaultClient.Do(mustRequest(t, http.MethodPut, base+requestURI(t, up.UploadURL), content(i)))
				if err != nil {
					problems <- err.Error()
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				switch {
				case res.StatusCode == http.StatusOK:
					return
				case res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "" && attempt < retries:
					continue
				default:
					problems <- fmt.Sprintf("client %d, attempt %d: %d %s", i, attempt, res.StatusCode, body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(problems)
	for p := range problems {
		t.Error(p)
	}
}

func mustRequest(t *testing.T, method, url string, body []byte) *http.Request {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// chunkCount is how many chunks of attachment id the database holds.
func (e *env) chunkCount(id string) int64 {
	e.t.Helper()
	var n int64
	if err := e.store.DB().Model(&models.TicketAttachmentChunk{}).Where("attachment_id = ?", id).Count(&n).Error; err != nil {
		e.t.Fatal(err)
	}
	return n
}

// A client whose connection drops mid-body, Content-Length or chunked,
// leaves nothing stored: its chunks are deleted, the attachment stays
// pending, and the same URL then takes the whole file.
func TestCutOffUploadCanBeSentAgain(t *testing.T) {
	const size = 3 << 20
	cases := map[string]func(uri string, part []byte) string{
		"content-length": func(uri string, part []byte) string {
			return putHead(uri, size) + "\r\n\r\n" + string(part)
		},
		"chunked": func(uri string, part []byte) string {
			return fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", uri, len(part), part)
		},
	}
	for name, request := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			base := e.listen()
			ticket := e.createTicket(incidentBody)
			up := e.initiate(ticket, "a.bin", size)
			content := bytes.Repeat([]byte("x"), size)
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(conn, request(requestURI(t, up.UploadURL), content[:size/2])); err != nil {
				t.Fatal(err)
			}
			// Cut off once the server is storing the body: its first chunk is in.
			testserver.Eventually(t, 10*time.Second, func() bool { return e.chunkCount(up.AttachmentID) > 0 }, "the first chunk stored")
			_ = conn.Close()
			testserver.Eventually(t, 10*time.Second, func() bool {
				var stored int64
				if err := e.store.DB().Model(&models.TicketAttachmentContent{}).Where("attachment_id = ?", up.AttachmentID).Count(&stored).Error; err != nil {
					t.Fatal(err)
				}
				if stored > 0 {
					t.Fatal("the cut-off body was stored as the attachment's bytes")
				}
				return e.chunkCount(up.AttachmentID) == 0
			}, "the cut-off upload's chunks deleted")
			e.transfer(http.MethodPut, up.UploadURL, content).expect(http.StatusOK)
			e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
			if got := e.download(ticket, up.AttachmentID); !bytes.Equal(got, content) {
				t.Fatalf("read back %d bytes, not the %d sent", len(got), size)
			}
		})
	}
}
