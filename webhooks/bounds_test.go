package webhooks_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"gorm.io/gorm"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/webhooks"
)

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

// rawStatus answers with a status line written by hand, which
// http.ResponseWriter cannot do.
func rawStatus(line string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		_, _ = buf.WriteString(line + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		_ = buf.Flush()
	}
}

// headers answers code with n headers of size bytes each, and more.
func headers(code, n, size int, more map[string]string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		for i := range n {
			w.Header().Set("X-Filler-"+strconv.Itoa(i), strings.Repeat("h", size))
		}
		for k, v := range more {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
	}
}

// Whatever a receiver answers, and however long the URL in the error, the
// attempt is stored (on PostgreSQL too, whose columns refuse long, NUL and
// invalid UTF-8 text) with bounded headers and error text, the delivery
// moves on to its retry, and no log line grows with the receiver's answer.
func TestReceiverAnswersAreBoundedInTheLog(t *testing.T) {
	logs := &syncBuffer{}
	h := newHarness(t, webhooks.Config{Log: slog.New(slog.NewTextHandler(logs, nil))})
	refused := "http://" + testserver.RefusedAddress(t) + "/" + strings.Repeat("a", 1960)
	cases := []struct {
		name    string
		url     string
		respond func(http.ResponseWriter, *http.Request, int)
		want    string // in the stored error
	}{
		{"2 MB of headers", "", headers(500, 64, 32<<10, nil), "exceeded"},
		{"12 KiB of headers", "", headers(500, 3, 4<<10, nil), "HTTP 500"},
		{"500 KB Location", "", headers(307, 0, 0, map[string]string{"Location": "https://x.example/" + strings.Repeat("l", 500<<10)}), "exceeded"},
		{"6 KB Location", "", headers(307, 0, 0, map[string]string{"Location": "https://x.example/" + strings.Repeat("l", 6<<10)}), "redirect"},
		{"long status line", "", rawStatus("HTTP/1.1 500 " + strings.Repeat("é", 3000)), "HTTP 500"},
		{"NUL and invalid UTF-8 in the status", "", rawStatus("HTTP/1.1 500 bad\x00\xff\xfe"), "HTTP 500"},
		{"2,000-character error", refused, nil, "connection refused"},
	}
	h.start()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url
			if tc.respond != nil {
				url = newReceiver(t, tc.respond).URL
			}
			h.webhook(url)
			h.ticket(tc.name)
			r := h.next()
			d := h.delivery(r.job.DeliveryID)
			if len(d.AttemptLog) != 1 || d.Attempts != 1 || d.Status != models.DeliveryPending || d.LeaseUntil != nil || r.dec.RetryAt == nil {
				t.Fatalf("delivery %+v with %d attempts; want one attempt stored and a retry scheduled", d.WebhookDelivery, len(d.AttemptLog))
			}
			a := d.AttemptLog[0]
			if !strings.Contains(a.Error, tc.want) || len(a.Error) > models.MaxErrorText || !utf8.ValidString(a.Error) ||
				strings.ContainsRune(a.Error, 0) || len(d.LastError) > models.MaxErrorText {
				t.Fatalf("stored error (%d bytes) %.200q, want at most %d bytes of valid text saying %q",
					len(a.Error), a.Error, models.MaxErrorText, tc.want)
			}
			if len(r.attempt.Error) > models.MaxErrorText {
				t.Fatalf("the dispatcher's error is %d bytes", len(r.attempt.Error))
			}
			size := 0
			for name, values := range a.ResponseHeaders {
				size += len(name)
				for _, v := range values {
					size += len(v)
				}
			}
			if size > models.MaxStoredHeaderBytes+len(models.TruncatedHeader)+len(models.ClipMarker) {
				t.Fatalf("%d bytes of response headers stored", size)
			}
		})
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if len(line) > 2*models.MaxErrorText {
			t.Fatalf("a log line of %d bytes: %.200s", len(line), line)
		}
	}
}

// Headers that do not all fit are kept in name order, and an entry says
// the rest were left out.
func TestStoredHeadersSayTheyWereCut(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, headers(500, 3, 4<<10, map[string]string{"A-First": "kept"}))
	h.webhook(rc.URL)
	h.start()
	h.ticket("cut")
	a := h.delivery(h.next().job.DeliveryID).AttemptLog[0]
	if a.ResponseHeaders["A-First"][0] != "kept" || a.ResponseHeaders[models.TruncatedHeader] == nil ||
		a.ResponseHeaders["X-Filler-2"] != nil {
		t.Fatalf("stored headers %v", keys(a.ResponseHeaders))
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// An attempt the database refuses outright (here a hook stands for any
// such refusal) is stored without the receiver's details, and the
// attempts recorded with it are kept: no delivery is left under its lease
// to be sent again when it expires.
func TestARefusedAttemptLosesNeitherItselfNorItsBatch(t *testing.T) {
	h := newHarness(t, webhooks.Config{Workers: 8})
	refuse := func(db *gorm.DB) {
		if attempts, ok := db.Statement.Dest.(*[]models.WebhookAttempt); ok {
			for _, a := range *attempts {
				if strings.Contains(a.Error, "POISON") {
					_ = db.AddError(errors.New("refused by the test"))
				}
			}
		}
	}
	if err := h.store.DB().Callback().Create().Before("gorm:create").Register("test:refuse_poison", refuse); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reason := "Internal Server Error"
		if n%2 == 1 {
			reason = "POISON"
		}
		rawStatus("HTTP/1.1 500 "+reason)(w, r, n)
	})
	h.webhook(rc.URL)
	const events = 8
	for i := range events {
		h.ticket(fmt.Sprint("event ", i))
	}
	h.start()
	bare := 0
	for range events {
		r := h.next()
		d := h.delivery(r.job.DeliveryID)
		if len(d.AttemptLog) != 1 || d.LeaseUntil != nil || d.Status != models.DeliveryPending || d.AttemptLog[0].StatusCode != 500 {
			t.Fatalf("delivery %+v with %d attempts", d.WebhookDelivery, len(d.AttemptLog))
		}
		if strings.Contains(d.AttemptLog[0].Error, "could not be stored") {
			bare++
		}
	}
	if bare != events/2 {
		t.Fatalf("%d attempts stored without details, want %d", bare, events/2)
	}
}
