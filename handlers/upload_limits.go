package handlers

import (
	"bytes"
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"cloudplane/handlers/api"
	"cloudplane/handlers/web"
	"cloudplane/models"
)

// UploadReadTimeout is the time a client has to send an attachment (25 MiB
// at 1 Mbit/s takes some 3.5 minutes), when it exceeds --read-timeout.
const UploadReadTimeout = 5 * time.Minute

// uploadFormOverhead is room for a multipart form's other fields and
// boundaries around the file.
const uploadFormOverhead = 64 << 10

// uploadLimits lets the two requests that carry an attachment past the
// 1 MiB BodyLimit, before fasthttp reads their body: a PUT to a presigned
// URL up to the size the URL declares (never more than the cap; the
// signature over that size is checked by the handler), and the
// dashboard's upload form up to the cap when it comes with a live session
// (signedIn), so that nobody signed out makes the server hold 25 MiB
// bodies only to be sent to the sign-in page. A larger Content-Length is
// refused before reading; a chunked body is cut at the limit. Every other
// request keeps BodyLimit.
func uploadLimits(readTimeout time.Duration, signedIn func(sessionToken string) bool) func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
	timeout := max(readTimeout, UploadReadTimeout)
	return func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		path, query, _ := bytes.Cut(h.RequestURI(), []byte("?"))
		switch {
		case h.IsPut() && bytes.HasPrefix(path, []byte(api.TransferPathPrefix)):
			q, _ := url.ParseQuery(string(query))
			size, err := strconv.ParseInt(q.Get("size"), 10, 64)
			if err != nil || size < 1 {
				return fasthttp.RequestConfig{}
			}
			return fasthttp.RequestConfig{MaxRequestBodySize: int(min(size, models.MaxAttachmentSize)), ReadTimeout: timeout}
		case h.IsPost() && isUploadForm(string(path)) && signedIn(string(h.Cookie(web.SessionCookie))):
			return fasthttp.RequestConfig{MaxRequestBodySize: models.MaxAttachmentSize + uploadFormOverhead, ReadTimeout: timeout}
		}
		return fasthttp.RequestConfig{}
	}
}

// isUploadForm matches the dashboard's /tickets/<id>/attachments.
func isUploadForm(path string) bool {
	rest, ok := strings.CutPrefix(path, "/tickets/")
	if !ok {
		return false
	}
	id, ok := strings.CutSuffix(rest, "/attachments")
	return ok && id != "" && !strings.Contains(id, "/")
}

func isTransferPath(p string) bool { return strings.HasPrefix(p, api.TransferPathPrefix) }

// liveSession reports whether token names a live dashboard session. The
// handler checks the session again, with its role and CSRF token; this is
// only whether the body may be large.
func liveSession(store *models.Store) func(token string) bool {
	return func(token string) bool {
		if token == "" {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), sessionCheckTimeout)
		defer cancel()
		_, _, err := store.SessionByToken(ctx, token)
		return err == nil
	}
}

// sessionCheckTimeout bounds liveSession's read, which runs before the
// request's own deadline starts.
const sessionCheckTimeout = 2 * time.Second
