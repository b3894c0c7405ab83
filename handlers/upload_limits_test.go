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

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The dashboard's upload form takes a body past BodyLimit only from a
// signed-in user: anybody else is refused on the Content-Length alone,
// before the body is read, so they cannot make the server hold 25 MiB per
// connection on their way to the sign-in page.
func TestUploadFormTakesLargeBodiesOnlyWhenSignedIn(t *testing.T) {
	addr, ticket, token := ticketToAttachTo(t)

	const size = 2 << 20 // past BodyLimit, within the attachment cap
	head := func(cookie string) string {
		h := "POST /tickets/" + ticket.ID + "/attachments HTTP/1.1\r\nHost: x\r\n" +
			"Content-Type: multipart/form-data; boundary=b\r\n" + fmt.Sprintf("Content-Length: %d\r\n", size)
		if cookie != "" {
			h += "Cookie: " + web.SessionCookie + "=" + cookie + "\r\n"
		}
		return h + "Connection: close\r\n\r\n"
	}
	// Headers alone: the refusal must not wait for a body.
	for name, cookie := range map[string]string{"no session": "", "unknown session": strings.Repeat("0", 64)} {
		t.Run(name, func(t *testing.T) {
			res, body := rawRequest(t, addr, head(cookie))
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413: %s", res.StatusCode, body)
			}
		})
	}
	// Signed in, the body is read and the form handled: without its CSRF
	// token it is refused for that, not for its size.
	t.Run("signed in", func(t *testing.T) {
		body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n" +
			"Content-Type: application/octet-stream\r\n\r\n"
		body += strings.Repeat("x", size-len(body)-len("\r\n--b--\r\n")) + "\r\n--b--\r\n"
		res, answer := rawRequest(t, addr, head(token)+body)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d, want 403 (no CSRF token): %.300s", res.StatusCode, answer)
		}
	})
}

// Bodies are streamed, so whatever of one a route does not read stays on
// the connection: it must never be read as the next request. A form's
// epilogue (after its closing boundary, within its Content-Length) that
// looks like a request is not answered; the request really sent after
// the form is.
func TestBodyRestIsNeverTheNextRequest(t *testing.T) {
	addr := serve(t)
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	// Past what the server and the form's reader read ahead.
	epilogue := strings.Repeat("x", 16<<10) + "\r\n" + smuggled
	form := "--b\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\na@example.com\r\n--b--\r\n" + epilogue
	pipelined := "POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(form)) + form +
		"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	statuses, last := pipeline(t, addr, pipelined)
	if len(statuses) != 2 || statuses[1] != http.StatusOK || !strings.Contains(last, "ok") {
		t.Fatalf("answers %v, last %q: want the form's and /livez's 200, and nothing for the epilogue", statuses, last)
	}
}

// Only a body parseForm streams to temporary files (a multipart form of
// known length, not encoded) may be larger than BodyLimit, even signed
// in: any other body is held whole in memory, so a signed-in user
// sending 24 MiB of octet-stream made the server allocate 112 MiB. One
// with a Content-Length past BodyLimit is refused on its headers, a
// chunked one once BodyLimit is read, an encoded one with 415.
func TestUploadFormTakesLargeBodiesOnlyAsStreamedForms(t *testing.T) {
	addr, ticket, token := ticketToAttachTo(t)
	const size = 2 << 20 // past BodyLimit, within the attachment cap
	head := "POST /tickets/" + ticket.ID + "/attachments HTTP/1.1\r\nHost: x\r\nCookie: " + web.SessionCookie + "=" + token +
		"\r\nConnection: close\r\n"
	chunk := strings.Repeat("x", 64<<10)
	var chunked strings.Builder
	for range size / len(chunk) {
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", len(chunk), chunk)
	}
	chunked.WriteString("0\r\n\r\n")
	for name, tc := range map[string]struct {
		request string
		status  int
	}{
		// Headers alone: the refusal must not wait for a body.
		"octet-stream": {head + fmt.Sprintf("Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", size), http.StatusRequestEntityTooLarge},
		"form, gzip": {head + fmt.Sprintf("Content-Type: multipart/form-data; boundary=b\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", size),
			http.StatusUnsupportedMediaType},
		"form, chunked": {head + "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked.String(),
			http.StatusRequestEntityTooLarge},
	} {
		t.Run(name, func(t *testing.T) {
			res, body := rawRequest(t, addr, tc.request)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
		})
	}
}

// A browser sending a file to the upload form sends it whole before it
// reads the answer: refused (here signed out, 24 MiB), it reads the 413
// page, not a reset, the server reading out as much as an attachment may
// have before it closes.
func TestRefusedUploadFormAnswerReachesTheClient(t *testing.T) {
	addr := serve(t)
	const size, clients = 24 << 20, 8
	head := "POST /tickets/" + models.NewID() + "/attachments HTTP/1.1\r\nHost: x\r\n" +
		"Content-Type: multipart/form-data; boundary=b\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", size)
	errs := make(chan error, clients)
	for range clients {
		go func() {
			res, err := sendWhole(addr, head, size)
			if err == nil && res.StatusCode != http.StatusRequestEntityTooLarge {
				err = fmt.Errorf("status %d, want 413", res.StatusCode)
			}
			errs <- err
		}()
	}
	failed := 0
	for range clients {
		if err := <-errs; err != nil {
			if failed++; failed <= 3 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d clients did not read the refusal", failed, clients)
	}
}

// sendWhole writes head and a body of size in pieces, without reading
// before all is sent, then reads the answer.
func sendWhole(addr, head string, size int) (*http.Response, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, head); err != nil {
		return nil, err
	}
	piece := make([]byte, 64<<10)
	for sent := 0; sent < size; sent += len(piece) {
		if _, err := conn.Write(piece); err != nil {
			return nil, fmt.Errorf("send the body, %d bytes in: %w", sent, err)
		}
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	_, err = io.ReadAll(res.Body)
	return res, err
}

// ticketToAttachTo serves a store with an owner's ticket, and returns the
// server's address, the ticket and a live session token of the owner.
func ticketToAttachTo(t *testing.T) (addr string, ticket *models.Ticket, token string) {
	t.Helper()
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	ticket, err := store.CreateTicket(context.Background(), owner.Actor(), models.CreateTicketInput{
		Subject: "Disk full", Description: "It is full.", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	_, token, err = store.SignIn(context.Background(), models.SignInInput{Email: owner.Email,
		Password: "correct horse battery", SourceIP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	return serveStore(t, store), ticket, token
}
