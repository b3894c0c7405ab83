package api_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/api/apitest"
	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// uploadsEnv is an env whose app receives maxUploads bodies at once and
// drops one that stalls for progress; its log is written to log.
func uploadsEnv(t *testing.T, maxUploads int, progress time.Duration, log io.Writer) *env {
	store := modelstest.Open(t)
	owner, key := modelstest.Owner(t, store, "owner@example.com")
	app := handlers.New(handlers.Config{Store: store, MaxUploads: maxUploads, RequestTimeout: 2 * time.Second,
		UploadProgressTimeout: progress, Log: slog.New(slog.NewTextHandler(log, nil))})
	return &env{t: t, app: app, store: store, spec: apitest.Optional(t), own: apitest.Cloudplane(t), owner: owner, key: key}
}

// logBuffer is a log destination the server's goroutines write at once.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// stall sends the head of an upload of size bytes to uri and the first
// 9 KiB of its body (past the 8 KiB the server reads with the head), then
// nothing more.
func stall(t *testing.T, base, uri string, size int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := fmt.Fprintf(conn, "%s\r\n\r\n%s", putHead(uri, size), strings.Repeat("x", 9<<10)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// A client that stops sending its body is dropped once no byte came for
// the progress timeout: it gets an answer (or its connection closed) long
// before the body's 5 minutes, stores nothing, and its turn (the only
// one) goes to the next upload, to the same URL too.
func TestStalledUploadDroppedAfterProgressTimeout(t *testing.T) {
	e := uploadsEnv(t, 1, 300*time.Millisecond, io.Discard)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	const size = 16 << 10
	up := e.initiate(ticket, "stalled", size)
	conn := stall(t, base, requestURI(t, up.UploadURL), size)
	_ = conn.SetReadDeadline(time.Now().Add(answerWait))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("stalled upload answered %d, want 400", res.StatusCode)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("a stalled upload was neither answered nor closed within %s", answerWait)
	}
	if n := e.chunkCount(up.AttachmentID); n != 0 {
		t.Errorf("%d chunks of the stalled upload left", n)
	}
	content := bytes.Repeat([]byte("y"), size)
	e.transfer(http.MethodPut, up.UploadURL, content).expect(http.StatusOK)
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
	if got := e.download(ticket, up.AttachmentID); !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes", len(got))
	}
}

// One account's uploads never take every turn: while it holds stalled
// uploads (more than the server receives at once), another account's
// many clients at once are all received, each at most after retrying a
// 503 with Retry-After. A 503 for want of a turn is logged as that, not
// as the database being unavailable.
func TestOneAccountCannotHoldEveryUploadTurn(t *testing.T) {
	var log logBuffer
	e := uploadsEnv(t, 4, time.Minute, &log)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	const size = 16 << 10
	for i := range 6 {
		up := e.initiate(ticket, fmt.Sprintf("stalled%d", i), size)
		stall(t, base, requestURI(t, up.UploadURL), size)
	}
	// The stalled ones are being received: their first chunk cannot be
	// stored before the body ends, so wait on the server's turns instead,
	// seen as an upload of this account waiting in vain.
	testserver.Eventually(t, 10*time.Second, func() bool {
		up := e.initiate(ticket, "probe", 4)
		r := e.transfer(http.MethodPut, up.UploadURL, []byte("abcd"))
		return r.Status == http.StatusServiceUnavailable
	}, "the stalled account's turns taken")

	other, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	o := *e
	o.owner, o.key = other, otherKey
	otherTicket := o.createTicket(incidentBody)
	const clients = 8
	ups := make([]initiated, clients)
	for i := range ups {
		ups[i] = o.initiate(otherTicket, fmt.Sprintf("f%d", i), size)
	}
	content := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, size) }
	putAllRetrying(t, base, ups, content, 5)
	if logged := log.String(); !strings.Contains(logged, "no upload turn came in time") || strings.Contains(logged, "database unavailable") {
		t.Errorf("the 503s for want of a turn were not logged as such:\n%s", logged)
	}
	for i, up := range ups {
		o.do(http.MethodPost, attachmentsPath(otherTicket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK)
		if got := o.download(otherTicket, up.AttachmentID); !bytes.Equal(got, content(i)) {
			t.Fatalf("client %d: read back %d bytes, not what it sent", i, len(got))
		}
	}
}
