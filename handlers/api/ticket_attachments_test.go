package api_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type initiated struct {
	AttachmentID string `json:"attachment_id"`
	UploadURL    string `json:"upload_url"`
	UploadMethod string `json:"upload_method"`
	UploadStatus string `json:"upload_status"`
	ExpiresIn    int64  `json:"expires_in"`
}

type attachmentBody struct {
	ID           string  `json:"id"`
	Filename     string  `json:"filename"`
	ContentType  string  `json:"content_type"`
	SizeBytes    int64   `json:"size_bytes"`
	UploadStatus string  `json:"upload_status"`
	UploadedAt   *string `json:"uploaded_at"`
}

func attachmentsPath(ticket string) string { return "/api/v1/tickets/" + ticket + "/attachments" }

func (e *env) initiate(ticket, filename string, size int) initiated {
	e.t.Helper()
	var out initiated
	e.do(http.MethodPost, attachmentsPath(ticket),
		fmt.Sprintf(`{"filename": %q, "content_type": "text/plain", "size_bytes": %d}`, filename, size)).
		expect(http.StatusOK).data(&out)
	return out
}

// transfer sends a request to a presigned URL as a storage client would:
// without the API key.
func (e *env) transfer(method, rawURL string, body []byte) *response {
	e.t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		e.t.Fatal(err)
	}
	req := httptest.NewRequest(method, u.RequestURI(), bytes.NewReader(body))
	return e.send(req)
}

func (e *env) listAttachments(ticket, query string) []attachmentBody {
	e.t.Helper()
	var out struct{ Attachments []attachmentBody }
	e.do(http.MethodGet, attachmentsPath(ticket)+query, nil).expect(http.StatusOK).data(&out)
	return out.Attachments
}

func TestAttachmentRoundTrip(t *testing.T) {
	e := newEnv(t)
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "page.html", 27)
	if up.UploadMethod != "PUT" || up.UploadStatus != "pending" || up.ExpiresIn != 3600 ||
		!strings.Contains(up.UploadURL, "/attachments/"+up.AttachmentID+"?") {
		t.Fatalf("initiate answered %+v", up)
	}
	if got := e.listAttachments(ticket, ""); len(got) != 0 {
		t.Fatalf("default list shows a pending attachment: %+v", got)
	}
	if got := e.listAttachments(ticket, "?status=pending"); len(got) != 1 || got[0].UploadedAt != nil {
		t.Fatalf("pending list: %+v", got)
	}
	page := []byte("<script>alert(1)</script>\n")
	page = append(page, '!')
	e.transfer(http.MethodPut, up.UploadURL, page).expect(http.StatusOK)
	var done attachmentBody
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).expect(http.StatusOK).data(&done)
	if done.UploadStatus != "uploaded" || done.UploadedAt == nil || done.SizeBytes != 27 || done.Filename != "page.html" {
		t.Fatalf("complete answered %+v", done)
	}
	if got := e.listAttachments(ticket, ""); len(got) != 1 || got[0].ID != up.AttachmentID {
		t.Fatalf("list: %+v", got)
	}
	var dl struct {
		DownloadURL string `json:"download_url"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	e.do(http.MethodGet, attachmentsPath(ticket)+"/"+up.AttachmentID+"/download", nil).expect(http.StatusOK).data(&dl)
	if dl.ExpiresIn != 900 {
		t.Errorf("download expires in %d", dl.ExpiresIn)
	}
	got := e.transfer(http.MethodGet, dl.DownloadURL, nil).expect(http.StatusOK)
	if !bytes.Equal(got.Body, page) {
		t.Fatalf("downloaded %q", got.Body)
	}
	for header, want := range map[string]string{
		"Content-Disposition":     `attachment; filename=page.html`,
		"X-Content-Type-Options":  "nosniff",
		"Content-Type":            "text/plain",
		"Content-Security-Policy": "default-src 'none'; sandbox",
	} {
		if got.Header.Get(header) != want {
			t.Errorf("%s: %q, want %q", header, got.Header.Get(header), want)
		}
	}
	e.do(http.MethodDelete, attachmentsPath(ticket)+"/"+up.AttachmentID, nil).expect(http.StatusOK)
	if got := e.listAttachments(ticket, "?status=deleted"); len(got) != 1 || got[0].UploadStatus != "deleted" {
		t.Fatalf("deleted list: %+v", got)
	}
	e.do(http.MethodDelete, attachmentsPath(ticket)+"/"+up.AttachmentID, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	e.do(http.MethodGet, attachmentsPath(ticket)+"/"+up.AttachmentID+"/download", nil).expectError(http.StatusNotFound, models.CodeNotFound)
	e.transfer(http.MethodGet, dl.DownloadURL, nil).expectError(http.StatusNotFound, models.CodeNotFound)
	if n := modelstest.AuditCount(t, e.store, *e.owner.AccountID, "ticket_attachment"); n != 2 {
		t.Errorf("%d audit events, want 2", n)
	}
}

func TestInitiateAttachmentScenarios(t *testing.T) {
	e := newEnv(t)
	ticket := e.createTicket(incidentBody)
	cases := []struct {
		name, body, field string
	}{
		{"size 0", `{"filename": "a", "content_type": "text/plain", "size_bytes": 0}`, "size_bytes"},
		{"size missing", `{"filename": "a", "content_type": "text/plain"}`, "size_bytes"},
		{"too big", fmt.Sprintf(`{"filename": "a", "content_type": "text/plain", "size_bytes": %d}`, models.MaxAttachmentSize+1), "size_bytes"},
		{"path", `{"filename": "../a", "content_type": "text/plain", "size_bytes": 1}`, "filename"},
		{"control character", `{"filename": "a\u0000b", "content_type": "text/plain", "size_bytes": 1}`, "filename"},
		{"no media type", `{"filename": "a", "content_type": "plain", "size_bytes": 1}`, "content_type"},
		{"size of the wrong type", `{"filename": "a", "content_type": "text/plain", "size_bytes": "1"}`, "size_bytes"},
		{"empty body", ``, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, attachmentsPath(ticket), tc.body).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
			if !strings.Contains(r.message(), tc.field) {
				t.Errorf("message %q does not name %s", r.message(), tc.field)
			}
		})
	}
	e.do(http.MethodPost, attachmentsPath(models.NewID()), `{"filename": "a", "content_type": "text/plain", "size_bytes": 1}`).
		expectError(http.StatusNotFound, models.CodeTicketNotFound)
	e.do(http.MethodGet, attachmentsPath(ticket)+"?status=gone", nil).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
}

func TestAttachmentTransferRefusals(t *testing.T) {
	e := newEnv(t)
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", 4)
	other := e.initiate(ticket, "b.txt", 4)
	u, _ := url.Parse(up.UploadURL)
	edit := func(change func(path string, q url.Values) (string, url.Values)) string {
		path, q := change(u.Path, u.Query())
		return path + "?" + q.Encode()
	}
	for _, tc := range []struct {
		name, url string
		status    int
		message   string
	}{
		{"other attachment", edit(func(p string, q url.Values) (string, url.Values) {
			return strings.Replace(p, up.AttachmentID, other.AttachmentID, 1), q
		}), 403, "signature does not match"},
		{"edited expiry", edit(func(p string, q url.Values) (string, url.Values) {
			q.Set("expires", q.Get("expires")+"0")
			return p, q
		}), 403, "signature does not match"},
		{"edited size", edit(func(p string, q url.Values) (string, url.Values) { q.Set("size", "40"); return p, q }), 403, "signature does not match"},
		{"edited signature", edit(func(p string, q url.Values) (string, url.Values) {
			q.Set("signature", strings.Repeat("0", 64))
			return p, q
		}), 403, "signature does not match"},
		{"no signature", u.Path, 403, "lacks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.transfer(http.MethodPut, tc.url, []byte("abcd")).expectError(tc.status, models.CodeForbidden)
			if !strings.Contains(r.message(), tc.message) {
				t.Errorf("message %q, want %q", r.message(), tc.message)
			}
		})
	}
	r := e.transfer(http.MethodGet, up.UploadURL, nil).expectError(http.StatusForbidden, models.CodeForbidden)
	if !strings.Contains(r.message(), "signed for PUT") {
		t.Errorf("wrong method: %q", r.message())
	}
	r = e.transfer(http.MethodPut, up.UploadURL, []byte("abc")).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	if !strings.Contains(r.message(), "ended after 3 of the 4 bytes") {
		t.Errorf("short: %q", r.message())
	}
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters) // the short body stored nothing
	e.transfer(http.MethodPut, up.UploadURL, []byte("abcd")).expect(http.StatusOK)
	e.transfer(http.MethodPut, up.UploadURL, []byte("abcd")).expectError(http.StatusConflict, models.CodeConflict)
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+other.AttachmentID+"/complete", nil).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters) // nothing uploaded yet

	e.clock.Advance(models.AttachmentUploadLifetime)
	r = e.transfer(http.MethodPut, other.UploadURL, []byte("abcd")).expectError(http.StatusForbidden, models.CodeForbidden)
	if !strings.Contains(r.message(), "expired") {
		t.Errorf("expired: %q", r.message())
	}
}

// An upload larger than its URL declares is refused before its body is
// read. (Over a real connection: the server refuses such a body before
// the app sees the request.) A URL claiming more than the cap is forged:
// TestForgedUploadRefusedBeforeItsBody.
func TestAttachmentUploadOverItsSizeRefused(t *testing.T) {
	e := newEnv(t)
	base := e.listen()
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", 4)
	u, _ := url.Parse(up.UploadURL)
	for name, tc := range map[string]struct {
		uri  string
		size int64
	}{
		"over the declared size": {u.RequestURI(), 5},
	} {
		t.Run(name, func(t *testing.T) {
			// Only the head is sent: the answer must come without the body.
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", tc.uri, tc.size)
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than the size its URL declares") {
				t.Fatalf("status %d, want 413; body %s", res.StatusCode, body)
			}
		})
	}
	e.do(http.MethodPost, attachmentsPath(ticket)+"/"+up.AttachmentID+"/complete", nil).
		expectError(http.StatusBadRequest, models.CodeInvalidParameters) // nothing was stored
}

func TestAttachmentQuotaAndIsolation(t *testing.T) {
	cfg := modelstest.Config()
	cfg.AttachmentCountQuota = 1
	e := newEnv(t, withStoreOptions(models.WithConfig(cfg)))
	ticket := e.createTicket(incidentBody)
	up := e.initiate(ticket, "a.txt", 1)
	e.do(http.MethodPost, attachmentsPath(ticket), `{"filename": "b", "content_type": "text/plain", "size_bytes": 1}`).
		expectError(http.StatusBadRequest, models.CodeQuotaExceeded)

	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	e.doAs(otherKey, http.MethodGet, attachmentsPath(ticket), nil).expectError(http.StatusNotFound, models.CodeTicketNotFound)
	var theirs struct{ ID string }
	e.doAs(otherKey, http.MethodPost, "/api/v1/tickets", incidentBody).expect(http.StatusOK).data(&theirs)
	for _, tc := range []struct{ method, suffix string }{
		{http.MethodPost, "/complete"}, {http.MethodGet, "/download"}, {http.MethodDelete, ""},
	} {
		e.doAs(otherKey, tc.method, attachmentsPath(theirs.ID)+"/"+up.AttachmentID+tc.suffix, nil).
			expectError(http.StatusNotFound, models.CodeNotFound)
	}
	e.doAs("", http.MethodGet, attachmentsPath(ticket), nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}
