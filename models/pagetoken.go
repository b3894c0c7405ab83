package models

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// cursor is a position in a keyset-paged listing: the sort value and id of
// the last row shown, and how the listing was sorted, so a token cannot be
// replayed against another order.
type cursor struct {
	OrderBy string    `json:"o"`
	Desc    bool      `json:"d"`
	At      time.Time `json:"t"`
	ID      string    `json:"i"`
	Key     string    `json:"k,omitempty"` // the sort key, in listings sorted on one before the time
}

// signCursor turns c into an opaque page token: the position and an HMAC
// over it with the server secret secretName, so clients can neither forge
// nor alter positions.
func (s *Store) signCursor(ctx context.Context, secretName string, c cursor) (string, error) {
	key, err := s.Secret(ctx, secretName)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(mac(key, raw)), nil
}

// openCursor checks a page token's signature and that it belongs to the
// same ordering, and returns its position. A tampered, truncated or foreign
// token is CodeInvalidParameters naming page_token.
func (s *Store) openCursor(ctx context.Context, secretName, token, orderBy string, desc bool) (cursor, error) {
	bad := InvalidField("page_token", "is not a page token of this listing; start again without it")
	payload, sig, ok := strings.Cut(token, ".")
	raw, err1 := base64.RawURLEncoding.DecodeString(payload)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return cursor{}, bad
	}
	key, err := s.Secret(ctx, secretName)
	if err != nil {
		return cursor{}, err
	}
	if !hmac.Equal(got, mac(key, raw)) {
		return cursor{}, bad
	}
	var c cursor
	if err := json.Unmarshal(raw, &c); err != nil || !IsID(c.ID) {
		return cursor{}, bad
	}
	if c.OrderBy != orderBy || c.Desc != desc {
		return cursor{}, InvalidField("page_token", "was issued for another order_by or direction; start again without it")
	}
	return c, nil
}

func mac(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)[:16]
}

// after limits q to the rows past c in the listing's order, on the sort
// column and the id column that breaks ties.
func (c cursor) after(q *gorm.DB, column, idColumn string) *gorm.DB {
	op := ">"
	if c.Desc {
		op = "<"
	}
	return q.Where(fmt.Sprintf("(%[1]s %[2]s ? OR (%[1]s = ? AND %[3]s %[2]s ?))", column, op, idColumn), c.At, c.At, c.ID)
}

// afterKey is after for a listing sorted on a key expression, then a
// time column, then the id, all in one direction.
func (c cursor) afterKey(q *gorm.DB, key, column, idColumn string) *gorm.DB {
	op := ">"
	if c.Desc {
		op = "<"
	}
	return q.Where(fmt.Sprintf("(%[1]s %[2]s ? OR (%[1]s = ? AND (%[3]s %[2]s ? OR (%[3]s = ? AND %[4]s %[2]s ?))))",
		key, op, column, idColumn), c.Key, c.Key, c.At, c.At, c.ID)
}

// keyOrder is the ORDER BY clause of a listing sorted as afterKey pages it.
func keyOrder(key, column, idColumn string, desc bool) string {
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	return key + dir + ", " + column + dir + ", " + idColumn + dir
}

// order is the ORDER BY clause for a listing sorted on column then id.
func order(column, idColumn string, desc bool) string {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	return column + " " + dir + ", " + idColumn + " " + dir
}
