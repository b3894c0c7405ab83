package models

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// attachmentURLSecret names the server secret that signs attachment URLs.
// It lives in the settings table, so every replica verifies what any other
// signed, and restarts keep issued URLs valid.
const attachmentURLSecret = "attachment-urls"

// Transfer methods: a presigned URL is good for exactly one.
const (
	TransferUpload   = "PUT"
	TransferDownload = "GET"
)

// AttachmentTransfer is a presigned permission to move one attachment's
// bytes: upload (PUT, at most Size bytes) or download (GET), until Expires.
// Its Signature is HMAC-SHA256 over all of that, so a URL edited to name
// another attachment, method, expiry or size is refused.
type AttachmentTransfer struct {
	AttachmentID string
	Method       string
	Expires      time.Time
	Size         int64 // uploads only: the declared size, which bounds the body
	Signature    string
}

// Query is the transfer as URL query parameters (expires, size, signature).
func (t *AttachmentTransfer) Query() url.Values {
	q := url.Values{"expires": {strconv.FormatInt(t.Expires.Unix(), 10)}, "signature": {t.Signature}}
	if t.Method == TransferUpload {
		q.Set("size", strconv.FormatInt(t.Size, 10))
	}
	return q
}

// ExpiresIn is the transfer's remaining lifetime in whole seconds.
func (t *AttachmentTransfer) ExpiresIn(now time.Time) int64 {
	return max(0, int64(t.Expires.Sub(now)/time.Second))
}

// ParseTransfer reads the transfer a request names: method and attachment
// id from its route, expires, size and signature from its query (get
// returns a query parameter). It checks shapes only; VerifyTransfer
// checks the signature.
func ParseTransfer(method, id string, get func(string) string) (*AttachmentTransfer, error) {
	expires, err := strconv.ParseInt(get("expires"), 10, 64)
	if err != nil || get("signature") == "" {
		return nil, transferRefused("The URL lacks its expires or signature parameter", "Use the URL exactly as the API returned it")
	}
	t := &AttachmentTransfer{AttachmentID: id, Method: method, Expires: time.Unix(expires, 0), Signature: get("signature")}
	// Read whatever size is given, for either method: a download URL used
	// to upload (or the reverse) is then told apart from an edited one.
	if raw := get("size"); raw != "" {
		if t.Size, err = strconv.ParseInt(raw, 10, 64); err != nil {
			return nil, transferRefused("The URL's size parameter is not a number", "Use the URL exactly as the API returned it")
		}
	}
	return t, nil
}

func transferRefused(msg, suggestion string) error {
	return &Error{Code: CodeForbidden, Message: msg, Suggestion: suggestion}
}

// signTransfer signs a transfer with the server's secret.
func (s *Store) signTransfer(ctx context.Context, method, id string, expires time.Time, size int64) (*AttachmentTransfer, error) {
	key, err := s.cachedSecret(ctx, attachmentURLSecret)
	if err != nil {
		return nil, err
	}
	t := &AttachmentTransfer{AttachmentID: id, Method: method, Expires: expires.Truncate(time.Second), Size: size}
	t.Signature = hex.EncodeToString(t.mac(key, method))
	return t, nil
}

func (t *AttachmentTransfer) mac(key []byte, method string) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "cloudplane-attachment\x00%s\x00%s\x00%d\x00%d", method, t.AttachmentID, t.Expires.Unix(), t.Size)
	return m.Sum(nil)
}

// VerifyTransfer accepts a transfer whose signature matches (compared in
// constant time) and which has not expired; otherwise CodeForbidden says
// what is wrong: a URL signed for the other method, an expired one, or
// one that was edited.
func (s *Store) VerifyTransfer(ctx context.Context, t *AttachmentTransfer) error {
	key, err := s.cachedSecret(ctx, attachmentURLSecret)
	if err != nil {
		return err
	}
	got, err := hex.DecodeString(t.Signature)
	if err != nil || !hmac.Equal(got, t.mac(key, t.Method)) {
		other := TransferUpload
		if t.Method == TransferUpload {
			other = TransferDownload
		}
		if err == nil && hmac.Equal(got, t.mac(key, other)) {
			return transferRefused(fmt.Sprintf("This URL was signed for %s, not %s", other, t.Method),
				fmt.Sprintf("Send the request with method %s", other))
		}
		return transferRefused("The URL's signature does not match: it was edited or belongs to another attachment",
			"Use the URL exactly as the API returned it, or ask the API for a new one")
	}
	if !s.Now().Before(t.Expires) {
		return transferRefused(fmt.Sprintf("The URL expired at %s", t.Expires.UTC().Format(time.RFC3339)),
			"Ask the API for a new URL")
	}
	return nil
}
