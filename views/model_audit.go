package views

import "time"

// Element ids of the audit log that the load-more requests name.
const (
	AuditRowsID = "audit-rows"
	AuditMoreID = "audit-more"
)

// AuditLog is the audit log page: the filters and one or more pages of
// events.
type AuditLog struct {
	Form          Form // start, end and resource_type, with errors
	ResourceTypes []Option
	Events        []AuditEvent
	NextURL       string // "" on the last page
	Continued     bool   // this page follows others (a page_token was given)
	Filtered      bool
	FirstURL      string // the first page with the same filters
}

// AuditEvent is one event with everything it records.
type AuditEvent struct {
	ID           string
	Time         time.Time
	Summary      string
	Type         string // cloud.instance
	Action       string
	Actor        string // in words, from the viewer's side
	ActorLRN     string
	APIKeyLRN    string
	OwnerLRN     string
	ResourceLRNs []string
	Details      string // additional_details as indented JSON
}
