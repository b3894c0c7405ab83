package models

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"time"
)

// auditTokenSecret names the server secret that authenticates page tokens.
const auditTokenSecret = "audit-page-token"

// A page token is base64url (unpadded) of
//
//	version (1 byte) | event_time, Unix microseconds (8) | event id (32) | MAC (16)
//
// where MAC is HMAC-SHA256, cut to 128 bits, over the token's scope and the
// bytes before it. The scope (tokenScope) is the account and the filters,
// so a token opens only for the query that issued it, without the token
// having to carry them.
const (
	auditTokenVersion = 1
	auditTokenMACSize = 16
	auditTokenSize    = 1 + 8 + 32 + auditTokenMACSize
)

// auditCursor is the last event of a page: the next page starts after it.
type auditCursor struct {
	at time.Time
	id string
}

// tokenScope renders what a token is bound to. Times are the normalised
// instants, so equal filters spelled differently share tokens.
func (in *AuditEventsInput) tokenScope(accountID string) []byte {
	b := []byte("audit-events\x00" + accountID + "\x00")
	for _, t := range []*time.Time{in.start, in.end} {
		if t != nil {
			b = strconv.AppendInt(b, t.UnixMicro(), 10)
		}
		b = append(b, 0)
	}
	b = append(b, in.service+"."+in.resource...)
	// The dashboard's filters, when set: the API's tokens stay as they were.
	if in.NewestFirst || in.ActorRole != "" || in.textPattern != "" {
		b = append(b, "\x00"+strconv.FormatBool(in.NewestFirst)+"\x00"+in.ActorRole+"\x00"+in.textPattern...)
	}
	return b
}

func sealAuditToken(key, scope []byte, c auditCursor) string {
	b := make([]byte, 0, auditTokenSize)
	b = append(b, auditTokenVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(c.at.UnixMicro()))
	b = append(b, c.id...)
	b = append(b, auditTokenMAC(key, scope, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// openAuditToken returns the cursor of a token sealed for scope; ok is
// false for anything else, whether truncated, altered or foreign.
func openAuditToken(key, scope []byte, token string) (c auditCursor, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != auditTokenSize || b[0] != auditTokenVersion {
		return auditCursor{}, false
	}
	body, mac := b[:auditTokenSize-auditTokenMACSize], b[auditTokenSize-auditTokenMACSize:]
	if !hmac.Equal(mac, auditTokenMAC(key, scope, body)) {
		return auditCursor{}, false
	}
	c = auditCursor{at: time.UnixMicro(int64(binary.BigEndian.Uint64(body[1:9]))).UTC(), id: string(body[9:])}
	return c, IsID(c.id)
}

func auditTokenMAC(key, scope, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(scope)
	m.Write(body)
	return m.Sum(nil)[:auditTokenMACSize]
}
