package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// The server streams request bodies (StreamRequestBody), so that an
// upload's body reaches the database as it arrives instead of whole in
// memory. Every other body is still read whole, within its limit, before
// any route runs (bufferBody): handlers see what they always saw.
//
// uploadLimits runs once a request's headers are in, before any of its
// body is read. It chooses the request's body limit and read timeout,
// and refuses a body it will not take by making it empty: Content-Length
// 0, and Connection: close so that the bytes sent anyway are never read
// as a next request. So a PUT to a presigned URL whose signature or expiry
// does not hold reaches its handler (a 403) with no body read and no
// buffer sized for it, and a Content-Length past the limit is answered
// 413 (or 400) by bufferBody at once. A limit other than BodyLimit
// travels to bufferBody in bodyLimitHeader, a refused size in
// bodyRefusedHeader; uploadLimits deletes both from every request first,
// so a client cannot set them.
//
// The limits: a PUT to a presigned URL takes up to the size the URL
// declares (never more than the cap), within UploadReadTimeout; the
// dashboard's upload form up to the cap when it comes with a live session
// (signedIn), so that nobody signed out makes the server read 25 MiB only
// to be sent to the sign-in page. Every other request keeps BodyLimit.
func uploadLimits(readTimeout time.Duration, signedIn func(sessionToken string) bool,
	verify func(path, query []byte) (size int64, ok bool)) func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
	timeout := max(readTimeout, UploadReadTimeout)
	return func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		h.Del(bodyLimitHeader)
		h.Del(bodyRefusedHeader)
		path, query, _ := bytes.Cut(h.RequestURI(), []byte("?"))
		limit, cfg := BodyLimit, fasthttp.RequestConfig{}
		switch {
		case h.IsPut() && bytes.HasPrefix(path, []byte(api.TransferPathPrefix)):
			size, ok := verify(path, query)
			if !ok {
				refuseBody(h)
				return cfg
			}
			limit = int(min(size, models.MaxAttachmentSize))
			cfg = fasthttp.RequestConfig{MaxRequestBodySize: limit, ReadTimeout: timeout}
		case h.IsPost() && isUploadForm(string(path)) && streamableForm(h) && signedIn(string(h.Cookie(web.SessionCookie))):
			limit = models.MaxAttachmentSize + uploadFormOverhead
			cfg = fasthttp.RequestConfig{MaxRequestBodySize: limit, ReadTimeout: timeout}
		}
		switch {
		case encoded(h) && h.ContentLength() != 0 && h.ContentLength() != -2:
			refuseBody(h)
			h.Set(bodyRefusedHeader, refusedEncoded)
			return fasthttp.RequestConfig{}
		case h.ContentLength() > limit:
			refuseBody(h)
			h.Set(bodyRefusedHeader, refusedTooLarge)
		}
		if limit != BodyLimit {
			h.Set(bodyLimitHeader, strconv.Itoa(limit))
		}
		return cfg
	}
}

// Headers uploadLimits sets for bufferBody.
const (
	bodyLimitHeader   = "X-Cloudplane-Body-Limit"
	bodyRefusedHeader = "X-Cloudplane-Body-Refused"
)

// Why a body was refused, in bodyRefusedHeader.
const (
	refusedTooLarge         = "too-large"
	refusedEncoded          = "encoded"
	refusedAmbiguousFraming = "ambiguous-framing"
)

// errEncodedBody refuses a request body with a Content-Encoding. Both ways
// a handler reads a body decompress it with no limit (fasthttp's
// MultipartForm, fiber's c.Body()), so 100 KiB of gzip made the server
// allocate gigabytes; no client of the API or the dashboard compresses
// what it sends, so none is taken (415), not even within a limit.
var errEncodedBody = errors.New("request body has a Content-Encoding")

// encoded reports whether the request names a Content-Encoding other
// than identity.
func encoded(h *fasthttp.RequestHeader) bool {
	ce := h.ContentEncoding()
	return len(ce) > 0 && !bytes.EqualFold(ce, []byte("identity"))
}

// streamableForm reports whether the body is a multipart form that
// parseForm reads as it arrives, its files to temporary files: of a known
// length, not encoded. Any other body is held whole in memory, so only
// this one may be larger than BodyLimit.
func streamableForm(h *fasthttp.RequestHeader) bool {
	return h.ContentLength() > 0 && len(h.MultipartFormBoundary()) > 0 && len(h.ContentEncoding()) == 0
}

// refusal is the error bufferBody answers a body uploadLimits refused
// with, from its reason.
func refusal(reason []byte) error {
	if string(reason) == refusedEncoded {
		return errEncodedBody
	}
	return fasthttp.ErrBodyTooLarge // too large, or its length ambiguous: unreadable tells which
}

// refuseBody makes a request's body empty and its connection end with it;
// a client that asked whether to send it (Expect: 100-continue) is not
// told to.
func refuseBody(h *fasthttp.RequestHeader) {
	h.SetContentLength(0)
	h.SetConnectionClose()
	h.Del(fasthttp.HeaderExpect)
}

// verifyUpload checks a presigned upload URL's signature and expiry from
// its path and query alone, and returns the size it declares.
func verifyUpload(store *models.Store) func(path, query []byte) (int64, bool) {
	return func(path, query []byte) (int64, bool) {
		q, err := url.ParseQuery(string(query))
		if err != nil {
			return 0, false
		}
		id := strings.TrimPrefix(string(path), api.TransferPathPrefix)
		t, err := models.ParseTransfer(models.TransferUpload, id, q.Get)
		if err != nil || t.Size < 1 {
			return 0, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), sessionCheckTimeout)
		defer cancel()
		return t.Size, store.VerifyTransfer(ctx, t) == nil
	}
}

// bodyBuffers hold bodies as bufferBody reads them, before they are
// copied into the request; pooled, as fasthttp pools the request's own.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putBodyBuffer pools b unless it grew past BodyLimit (an upload form's
// 25 MiB is not kept for every request after it).
func putBodyBuffer(b *[]byte) {
	if cap(*b) <= BodyLimit+bytes.MinRead {
		bodyBuffers.Put(b)
	}
}

// isStreamedUpload reports whether the request is a PUT to a presigned
// upload URL, whose body its handler reads as it arrives.
func isStreamedUpload(h *fasthttp.RequestHeader) bool {
	return h.IsPut() && bytes.HasPrefix(h.RequestURI(), []byte(api.TransferPathPrefix))
}

// bufferBody reads the body of every request but a streamed upload,
// within the limit uploadLimits chose, before any route runs (a multipart
// form: parseForm). It answers (with refuse) and returns false when the
// body is refused or unreadable. A streamed upload ends its connection: a
// body its handler did not read to the end must not be read as the next
// request (lingerUnreadUpload reads it out).
//
// A body of known length, the usual case, is read exactly into a pooled
// buffer grown to that length once: no allocation for a small JSON body,
// one copy into the request. Only a chunked body is read up to its limit.
func bufferBody(fctx *fasthttp.RequestCtx, refuse func(*fasthttp.RequestCtx, error)) bool {
	h := &fctx.Request.Header
	if reason := h.Peek(bodyRefusedHeader); len(reason) > 0 {
		refuse(fctx, refusal(reason))
		return false
	}
	if isStreamedUpload(h) {
		fctx.SetConnectionClose()
		return true
	}
	stream := fctx.RequestBodyStream()
	if stream == nil {
		return true
	}
	length := h.ContentLength()
	if length == 0 { // most requests: nothing to read
		fctx.Request.ResetBody()
		return true
	}
	if streamableForm(h) {
		return parseForm(fctx, stream, refuse)
	}
	buf := bodyBuffers.Get().(*[]byte)
	defer putBodyBuffer(buf)
	var err error
	if length > 0 { // uploadLimits refused a length past the limit
		*buf = slices.Grow((*buf)[:0], length)[:length]
		_, err = io.ReadFull(stream, *buf)
	} else {
		*buf, err = readChunked((*buf)[:0], stream, bodyLimit(h))
	}
	if err == nil {
		fctx.Request.SetBody(*buf) // into the request's own pooled buffer
	}
	if err != nil {
		fctx.SetConnectionClose()
		refuse(fctx, err)
		return false
	}
	return true
}

// bodyLimit is the limit uploadLimits chose for the request.
func bodyLimit(h *fasthttp.RequestHeader) int {
	if v := h.Peek(bodyLimitHeader); len(v) > 0 {
		if limit, err := strconv.Atoi(string(v)); err == nil && limit > 0 {
			return limit
		}
	}
	return BodyLimit
}

// readChunked appends a body of unknown length to dst, up to limit.
func readChunked(dst []byte, stream io.Reader, limit int) ([]byte, error) {
	body := bytes.NewBuffer(dst)
	_, err := body.ReadFrom(io.LimitReader(stream, int64(limit)+1))
	if err == nil && body.Len() > limit {
		err = fasthttp.ErrBodyTooLarge
	}
	return body.Bytes(), err
}

// parseForm parses a multipart form (of a length uploadLimits checked)
// from the connection as it arrives, its files past 8 KiB going to
// temporary files, as fasthttp did before bodies were streamed: a 25 MiB
// attachment from the dashboard is not held in memory. What follows the
// form's end is read too, so that it is not taken for the next request.
func parseForm(fctx *fasthttp.RequestCtx, stream io.Reader, refuse func(*fasthttp.RequestCtx, error)) bool {
	_, err := fctx.Request.MultipartForm()
	if err == nil {
		_, err = io.Copy(io.Discard, stream)
	}
	if err != nil {
		fctx.Request.Reset() // as fasthttp's own parsing did
		fctx.SetConnectionClose()
		refuse(fctx, err)
		return false
	}
	return true
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
