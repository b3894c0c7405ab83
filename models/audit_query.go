package models

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"
)

// AuditPageSize is how many events one page of the audit log holds.
const AuditPageSize = 100

// AuditEventsInput selects a page of the audit log. Every field is optional
// and is spelled as the API's query parameter of the same name.
type AuditEventsInput struct {
	Start        string // RFC 3339, inclusive
	End          string // RFC 3339, inclusive
	ResourceType string // <service_name>.<resource_name>, e.g. cloud.filesystem
	PageToken    string // NextToken of the previous page

	// The dashboard's own filters; the API sets none of them.
	NewestFirst bool   // order by (event_time, id) descending
	ActorRole   string // owner, support, operator or system
	Text        string // words in the event's details or resource names

	// Set by Validate.
	start, end        *time.Time
	service, resource string
	textPattern       string // Text as a LIKE pattern over the stored JSON
}

// AuditPage is one page of the audit log, oldest event first. NextToken
// fetches the following page; it is empty on the last one.
type AuditPage struct {
	Events    []AuditEvent
	NextToken string
}

// Validate parses the times and the resource type. A time names an instant
// at any precision; events are kept to the microsecond, so start is rounded
// up and end down to it, which keeps both bounds exactly inclusive.
func (in *AuditEventsInput) Validate() error {
	var f FieldErrors
	start := parseInstant(&f, "start", in.Start)
	end := parseInstant(&f, "end", in.End)
	if start != nil && end != nil && start.After(*end) {
		f.Add("start", "must not be after end")
	}
	if start != nil {
		up := dbTime(*start)
		if up.Before(*start) {
			up = up.Add(time.Microsecond)
		}
		in.start = &up
	}
	if end != nil {
		down := dbTime(*end)
		in.end = &down
	}
	if in.ResourceType != "" {
		service, resource, ok := splitResourceType(in.ResourceType)
		if !ok {
			f.Add("resource_type", "must read <service_name>.<resource_name> in lower case, e.g. cloud.filesystem")
		}
		in.service, in.resource = service, resource
	}
	in.validateDashboardFilters(&f)
	return f.Err()
}

// AuditEvents returns one page of the audit log of the actor's account
// (for support staff, the platform's: Actor.auditLog), oldest first by
// (event_time, id); events of other accounts are never seen. It records
// nothing. Unparsable
// times, start after end, a malformed resource_type, and a page_token that
// was altered or was issued to another account or for other filters are
// global/invalid-parameters naming the field. A well-formed resource_type
// that no event has yields an empty page.
func (s *Store) AuditEvents(ctx context.Context, actor Actor, in AuditEventsInput) (*AuditPage, error) {
	accountID, err := actor.auditLog()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	key, err := s.cachedSecret(ctx, auditTokenSecret)
	if err != nil {
		return nil, err
	}
	scope := in.tokenScope(accountID)
	var after *auditCursor
	if in.PageToken != "" {
		c, ok := openAuditToken(key, scope, in.PageToken)
		if !ok {
			return nil, InvalidField("page_token", "is not one this query issued: it was altered, or it belongs to "+
				"another account or to other start, end or resource_type values; start again without it")
		}
		after = &c
	}
	events, err := findAuditEvents(auditPageQuery(s.read(ctx), accountID, &in, after))
	if err != nil {
		return nil, err
	}
	page := &AuditPage{Events: events}
	if len(events) > AuditPageSize {
		page.Events = events[:AuditPageSize]
		last := page.Events[AuditPageSize-1]
		page.NextToken = sealAuditToken(key, scope, auditCursor{at: last.EventTime, id: last.ID})
	}
	return page, nil
}

// auditPageQuery selects a page and one event more, which tells whether a
// next page exists without a second query. after is the last event of the
// previous page; it replaces start (the token was issued for start, so it
// lies at or after it), because given both lower bounds SQLite ranges over
// the looser one and a deep page would cost its depth. The row-value form
// is the one both databases turn into an index range condition; PostgreSQL
// does not for its expansion with OR.
func auditPageQuery(db *gorm.DB, accountID string, in *AuditEventsInput, after *auditCursor) *gorm.DB {
	return auditQuery(db, accountID, in, after).Limit(AuditPageSize + 1)
}

// auditQuery selects the events after the cursor in the input's order.
// Newest first mirrors it: the cursor replaces end instead of start.
func auditQuery(db *gorm.DB, accountID string, in *AuditEventsInput, after *auditCursor) *gorm.DB {
	q := auditFilter(db, accountID, in)
	if in.textPattern != "" {
		// Bounded: the words are looked for among the newest events that
		// match the other filters (a time range moves the window back),
		// never through the whole log.
		window := auditFilter(db, accountID, in)
		if in.start != nil {
			window = window.Where("event_time >= ?", *in.start)
		}
		if in.end != nil {
			window = window.Where("event_time <= ?", *in.end)
		}
		q = q.Where("id IN (?)", window.Select("id").Order("event_time DESC, id DESC").Limit(AuditSearchWindow))
		q = q.Where("(additional_details "+likeOperator(db)+" ? ESCAPE '\\' OR resource_lrns "+likeOperator(db)+" ? ESCAPE '\\')",
			in.textPattern, in.textPattern)
	}
	first, last, order := in.start, in.end, "event_time, id"
	cmp := ">"
	if in.NewestFirst {
		first, last, order, cmp = in.end, in.start, "event_time DESC, id DESC", "<"
	}
	switch {
	case after != nil:
		q = q.Where("(event_time, id) "+cmp+" (?, ?)", after.at, after.id)
	case first != nil:
		q = q.Where("event_time "+cmp+"= ?", *first)
	}
	if last != nil {
		q = q.Where("event_time "+flip(cmp)+"= ?", *last)
	}
	return q.Order(order)
}

// auditFilter is the account and the filters that are not a range.
func auditFilter(db *gorm.DB, accountID string, in *AuditEventsInput) *gorm.DB {
	q := db.Model(&AuditEvent{}).Where("account_id = ?", accountID)
	if in.resource != "" {
		q = q.Where("service_name = ? AND resource_name = ?", in.service, in.resource)
	}
	if in.ActorRole != "" {
		q = q.Where("actor_role = ?", in.ActorRole)
	}
	return q
}

func flip(cmp string) string {
	if cmp == ">" {
		return "<"
	}
	return ">"
}

// parseInstant reads an optional RFC 3339 time. A '+' offset sent without
// URL encoding reaches us as a space; it is read as the '+' that was meant.
func parseInstant(f *FieldErrors, field, v string) *time.Time {
	if v == "" {
		return nil
	}
	if i := len(v) - 6; i > 0 && v[i] == ' ' {
		v = v[:i] + "+" + v[i+1:]
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		f.Add(field, "must be an RFC 3339 time, e.g. 2026-01-02T03:04:05Z")
		return nil
	}
	return &t
}

// splitResourceType splits "cloud.filesystem" into its service and
// resource names: each lower-case letters, digits and underscores, starting
// with a letter.
func splitResourceType(v string) (service, resource string, ok bool) {
	service, resource, ok = strings.Cut(v, ".")
	return service, resource, ok && isCatalogName(service) && isCatalogName(resource)
}

func isCatalogName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}
