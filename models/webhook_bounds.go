package models

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds on what the delivery log keeps of an attempt. A receiver chooses
// its status line, headers and body, and through a failing URL or a
// redirect the text of the error too; none of it may grow the database, a
// log line or a page without limit.
const (
	// MaxCapturedBody bounds how much of a receiver's answer the log keeps.
	MaxCapturedBody = 64 << 10
	// MaxStoredHeaderBytes bounds the response headers kept, names and
	// values together.
	MaxStoredHeaderBytes = 8 << 10
	// MaxErrorText bounds an attempt's error, below its column's 1,024.
	MaxErrorText = 1000
)

// ClipMarker ends text that Clip shortened.
const ClipMarker = " …[truncated]"

// TruncatedHeader names the entry that stands, in stored response headers,
// for those left out. It has a space, so no real header has this name.
const TruncatedHeader = "(truncated)"

// Clip makes s fit in n bytes, for text that came from outside: invalid
// UTF-8 becomes U+FFFD and NUL bytes are dropped (PostgreSQL refuses
// both in text columns), and text longer than n is cut on a character
// boundary and ends with ClipMarker. n must exceed len(ClipMarker).
func Clip(s string, n int) string {
	cut := len(s) > n
	if cut {
		s = s[:n] // a first cut, so cleaning never runs over megabytes
	}
	s = clean(s)
	if !cut && len(s) <= n {
		return s
	}
	end := min(len(s), n-len(ClipMarker))
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + ClipMarker
}

// clean replaces invalid UTF-8 and drops NUL bytes.
func clean(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
}

// clipHeaders keeps, in name order, the response headers that fit in max
// bytes; a header that does not fit and those after it are left out, and
// a TruncatedHeader entry says so.
func clipHeaders(h map[string][]string, max int) map[string][]string {
	out := make(map[string][]string, len(h))
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	used, dropped := 0, 0
	for _, name := range names {
		key, values := clean(name), make([]string, len(h[name]))
		size := len(key)
		for i, v := range h[name] {
			values[i] = clean(v)
			size += len(values[i])
		}
		if dropped > 0 || used+size > max {
			dropped += size
			continue
		}
		used += size
		out[key] = values
	}
	if dropped > 0 {
		out[TruncatedHeader] = []string{strings.TrimSpace(ClipMarker)}
	}
	return out
}

// fitAttempt bounds every field of a to what its column holds and the log
// keeps, so that storing an attempt never fails on its content: an
// attempt that cannot be stored holds its delivery's lease until it
// expires, and the delivery is then sent again, forever.
func fitAttempt(a WebhookAttempt) WebhookAttempt {
	a.URL = Clip(a.URL, 2048)
	a.RemoteAddr = Clip(a.RemoteAddr, 64)
	a.ErrorKind = Clip(a.ErrorKind, 16)
	a.Error = Clip(a.Error, MaxErrorText)
	req := make(map[string]string, len(a.RequestHeaders))
	for name, v := range a.RequestHeaders {
		req[Clip(name, 256)] = Clip(v, 1024)
	}
	a.RequestHeaders = req
	a.ResponseHeaders = clipHeaders(a.ResponseHeaders, MaxStoredHeaderBytes)
	if len(a.ResponseBody) > MaxCapturedBody {
		a.ResponseBody, a.BodyTruncated = a.ResponseBody[:MaxCapturedBody], true
	}
	return a
}
