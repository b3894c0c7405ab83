package views

import (
	"strconv"
	"time"
)

// Element ids of the audit log that the load-more requests name.
const (
	AuditRowsID = "audit-rows"
	AuditMoreID = "audit-more"
)

// AuditLog is the audit log page: the filters and one or more pages of
// events.
type AuditLog struct {
	Form          Form // start, end, resource_type, actor, text and order, with errors
	ResourceTypes []Option
	Actors        []Option
	Platform      bool // the platform's log, for support staff: events of no account
	Events        []AuditEvent
	NewestFirst   bool
	NextURL       string // "" on the last page
	Continued     bool   // this page follows others (a page_token was given)
	Filtered      bool
	FirstURL      string // the first page with the same filters
	OrderURL      string // the first page with the same filters, in the other order
	CSVURL        string // the export of every matching event, as CSV
	JSONLinesURL  string // the same as JSON lines
	ExportLimit   int    // events an export holds at most
	SearchWindow  int    // newest events a text search looks through
}

// AuditEvent is one event with everything it records.
type AuditEvent struct {
	ID           string
	Time         time.Time
	Summary      string
	Parts        []TextPart // the summary, its objects linked
	Type         string     // cloud.instance
	Action       string
	Actor        string // in words, from the viewer's side
	ActorLRN     string
	APIKeyLRN    string
	OwnerLRN     string
	ResourceLRNs []string
	Details      string // additional_details as indented JSON
}

// Grouped writes n with thousands separated: 10,000.
func Grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TextPart is a piece of a sentence, linked when Href is set.
type TextPart struct {
	Text, Href string
}
