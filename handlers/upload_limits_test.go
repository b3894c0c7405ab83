package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The dashboard's upload form takes a body past BodyLimit only from a
// signed-in user: anybody else is refused on the Content-Length alone,
// before the body is read, so they cannot make the server hold 25 MiB per
// connection on their way to the sign-in page.
func TestUploadFormTakesLargeBodiesOnlyWhenSignedIn(t *testing.T) {
	store := modelstest.Open(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	ticket, err := store.CreateTicket(context.Background(), owner.Actor(), models.CreateTicketInput{
		Subject: "Disk full", Description: "It is full.", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := store.SignIn(context.Background(), models.SignInInput{Email: owner.Email,
		Password: "correct horse battery", SourceIP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveStore(t, store)

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
