package models

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"time"
)

// UsagePageSize is how many instance rows one page of usage holds.
const UsagePageSize = 100

// usageTokenSecret names the server secret that authenticates usage page
// tokens.
const usageTokenSecret = "usage-page-token"

// UsageInput asks for a page of an account's usage, spelled as the API's
// query parameters. Start and End are RFC 3339 instants or YYYY-MM-DD
// dates (UTC): a start date means that day's first instant, an end date
// includes that day. Absent, they are the current month. PageToken is the
// NextPageToken of the previous page.
type UsageInput struct {
	AccountID  string // support staff only
	Start, End string
	PageToken  string
}

// UsagePage is a period's days and types in full and one page of its
// instances, all read at AsOf (a later page reads at its first page's
// instant, so the pages add up to TotalCents exactly).
type UsagePage struct {
	*UsageReport
	NextPageToken string // "" on the last page
}

// UsagePage answers one page of the account's usage. Readers as for
// Usage. Codes: CodeInvalidParameters naming start, end or page_token.
func (s *Store) UsagePage(ctx context.Context, actor Actor, in UsageInput) (*UsagePage, error) {
	accountID, err := s.usageAccount(ctx, actor, in.AccountID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	q, err := in.query(now)
	if err != nil {
		return nil, err
	}
	key, err := s.cachedSecret(ctx, usageTokenSecret)
	if err != nil {
		return nil, err
	}
	scope := usageTokenScope(accountID, q)
	var after *usageCursor
	if in.PageToken != "" {
		c, ok := openUsageToken(key, scope, in.PageToken)
		if !ok {
			return nil, InvalidField("page_token", "is not one this query issued: it was altered, or it belongs to "+
				"another account or to other start or end values; start again without it")
		}
		after, now = &c, c.asOf
	}
	r, err := s.usageAt(ctx, accountID, q.Start, q.End, now)
	if err != nil {
		return nil, err
	}
	rows := r.Instances
	if after != nil {
		i := 0
		for i < len(rows) && !after.before(rows[i]) {
			i++
		}
		rows = rows[i:]
	}
	page := &UsagePage{UsageReport: r}
	if len(rows) > UsagePageSize {
		rows = rows[:UsagePageSize]
		last := rows[len(rows)-1]
		page.NextPageToken = sealUsageToken(key, scope, usageCursor{asOf: now, launch: last.LaunchedAt, id: last.InstanceID})
	}
	r.Instances = rows
	return page, s.withNames(ctx, accountID, rows)
}

// query parses the period; now fills in the current month.
func (in UsageInput) query(now time.Time) (UsageQuery, error) {
	f := &FieldErrors{}
	q := UsageQuery{Start: MonthStart(now), End: MonthStart(now).AddDate(0, 1, 0)}
	if in.Start != "" {
		if t, ok := parseUsageTime(in.Start, false); ok {
			q.Start = t
		} else {
			f.Add("start", "must be an RFC 3339 time (2026-01-02T03:04:05Z) or a date (2026-01-02)")
		}
	}
	if in.End != "" {
		if t, ok := parseUsageTime(in.End, true); ok {
			q.End = t
		} else {
			f.Add("end", "must be an RFC 3339 time (2026-01-02T03:04:05Z) or a date (2026-01-02)")
		}
	}
	if err := f.Err(); err != nil {
		return q, err
	}
	q.Start, q.End = dbTime(q.Start), dbTime(q.End)
	return q, q.Validate()
}

// parseUsageTime reads an RFC 3339 instant or a UTC date; an end date
// means the end of that day.
func parseUsageTime(v string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
		}
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t.UTC(), err == nil
}

// usageCursor is the last instance of a page and the instant the listing
// is read at.
type usageCursor struct {
	asOf, launch time.Time
	id           string
}

// before tells whether the cursor comes before the row in the listing's
// order (launch, then id).
func (c usageCursor) before(u InstanceUsage) bool {
	a, b := c.launch.UnixMicro(), u.LaunchedAt.UnixMicro()
	return a < b || a == b && c.id < u.InstanceID
}

// A usage page token is base64url (unpadded) of
//
//	version (1) | as of (8) | launch (8), Unix microseconds | instance id (32) | MAC (16)
//
// the MAC (HMAC-SHA256 cut to 128 bits) covering the account and period
// too, so a token opens only for the query that issued it.
const (
	usageTokenVersion = 1
	usageTokenSize    = 1 + 8 + 8 + 32 + auditTokenMACSize
)

func usageTokenScope(accountID string, q UsageQuery) []byte {
	b := []byte("usage\x00" + accountID + "\x00")
	b = strconv.AppendInt(b, q.Start.UnixMicro(), 10)
	b = append(b, 0)
	return strconv.AppendInt(b, q.End.UnixMicro(), 10)
}

func sealUsageToken(key, scope []byte, c usageCursor) string {
	b := make([]byte, 0, usageTokenSize)
	b = append(b, usageTokenVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(c.asOf.UnixMicro()))
	b = binary.BigEndian.AppendUint64(b, uint64(c.launch.UnixMicro()))
	b = append(b, c.id...)
	b = append(b, auditTokenMAC(key, scope, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func openUsageToken(key, scope []byte, token string) (usageCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != usageTokenSize || b[0] != usageTokenVersion {
		return usageCursor{}, false
	}
	body, mac := b[:usageTokenSize-auditTokenMACSize], b[usageTokenSize-auditTokenMACSize:]
	if !hmac.Equal(mac, auditTokenMAC(key, scope, body)) {
		return usageCursor{}, false
	}
	micro := func(p []byte) time.Time { return time.UnixMicro(int64(binary.BigEndian.Uint64(p))).UTC() }
	c := usageCursor{asOf: micro(body[1:9]), launch: micro(body[9:17]), id: string(body[17:])}
	return c, IsID(c.id)
}
