package handlers

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// Request smuggling: fasthttp lets the last of several Content-Length
// headers win, and Transfer-Encoding win over Content-Length. A proxy in
// front that reads the first length (or the length instead of the chunks)
// then sees one request where we see two, and the second, hidden in the
// first one's body, runs unchecked by the proxy. RFC 9112 §6.3 lets a
// server refuse such a message (400) and close the connection; refusing
// every duplicated Content-Length, even identical ones (which RFC 9110
// §8.6 would allow), costs nothing a real client sends and leaves no case
// to get wrong.

// ambiguousFraming reports whether the request head names its body's
// length more than once: two Content-Length headers, or Content-Length
// with Transfer-Encoding. It reads the raw header block, since the parsed
// header keeps one value only, and only when there is a body header at all
// (fasthttp's -2 means neither), so a GET costs one comparison.
func ambiguousFraming(h *fasthttp.RequestHeader) bool {
	if h.ContentLength() == -2 {
		return false
	}
	lengths, chunked := 0, false
	raw := h.RawHeaders()
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte("\n"))
		name, _, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		switch {
		case bytes.EqualFold(name, []byte(fasthttp.HeaderContentLength)):
			lengths++
		case bytes.EqualFold(name, []byte(fasthttp.HeaderTransferEncoding)):
			chunked = true
		}
	}
	return lengths > 1 || (lengths > 0 && chunked)
}

// refuseAmbiguousFraming runs before next (the upload limits) as the
// server's HeaderReceived.
func refuseAmbiguousFraming(next func(*fasthttp.RequestHeader) fasthttp.RequestConfig) func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
	return func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		if ambiguousFraming(h) {
			// No byte of the body is read; bufferBody refuses the request
			// and unreadable tells why from the head again.
			h.Del(bodyLimitHeader)
			refuseBody(h)
			h.Set(bodyRefusedHeader, refusedAmbiguousFraming)
			return fasthttp.RequestConfig{}
		}
		return next(h)
	}
}
