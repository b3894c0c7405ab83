package handlers

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"testing"
)

// A request body with a Content-Encoding is refused (415) on its headers,
// before any byte of it is read: fasthttp's multipart parser and fiber's
// c.Body() both inflate it with no limit, so 100 KiB of gzip sent to the
// sign-in form made the server allocate gigabytes. Under /api/ the answer
// is the JSON envelope, elsewhere a page; "identity" is no encoding.
func TestEncodedRequestBodiesAreRefused(t *testing.T) {
	addr := serve(t)
	form := gzipped(t, "--b\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n"+strings.Repeat("\x00", 8<<20)+"\r\n--b--\r\n")
	json := gzipped(t, `{"name":"a","region":"us-east-1"}`)
	for name, tc := range map[string]struct {
		request string
		api     bool
	}{
		"gzip form to the sign-in page": {post("/sign-in", "multipart/form-data; boundary=b", "Content-Encoding: gzip\r\n", form), false},
		"gzip JSON to the API":          {post("/api/v1/filesystems", "application/json", "Content-Encoding: gzip\r\n", json), true},
		"deflate, chunked, to the API": {"POST /api/v1/filesystems HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
			"Content-Encoding: deflate\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + "5\r\nxxxxx\r\n0\r\n\r\n", true},
	} {
		t.Run(name, func(t *testing.T) {
			res, body := rawRequest(t, addr, tc.request)
			if res.StatusCode != http.StatusUnsupportedMediaType {
				t.Fatalf("status %d, want 415: %.300s", res.StatusCode, body)
			}
			isJSON := bytes.Contains(body, []byte(`"global/invalid-parameters"`))
			if isJSON != tc.api || !bytes.Contains(body, []byte("Content-Encoding")) {
				t.Fatalf("answer (API %v) does not say why in its kind: %.300s", tc.api, body)
			}
		})
	}
	t.Run("identity", func(t *testing.T) {
		res, body := rawRequest(t, addr, post("/api/v1/filesystems", "application/json", "Content-Encoding: identity\r\n", []byte(`{}`)))
		if res.StatusCode != http.StatusUnauthorized { // read and routed: no API key
			t.Fatalf("status %d, want 401: %.300s", res.StatusCode, body)
		}
	})
}

func post(path, contentType, header string, body []byte) string {
	return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + contentType + "\r\n" + header +
		"Content-Length: " + itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + string(body)
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
