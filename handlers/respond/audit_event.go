package respond

import (
	"time"

	"cloudplane/models"
)

// auditTimeLayout is RFC 3339 in UTC to the microsecond, the precision
// events are kept at: events of one second stay distinguishable, and an
// event_time given back as start or end selects exactly that event's time.
const auditTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// AuditEventJSON is an audit event on the wire, as the reference API
// shows it: the API's list answers it, and the dashboard's JSON lines
// export writes the same fields, so a script reads both alike.
type AuditEventJSON struct {
	EventID           string              `json:"event_id"`
	EventTime         string              `json:"event_time"`
	ServiceName       string              `json:"service_name"`
	ResourceName      string              `json:"resource_name"`
	Action            string              `json:"action"`
	CatalogVersion    string              `json:"catalog_version"`
	ActorLRN          *string             `json:"actor_lrn"`
	ResourceLRNs      []string            `json:"resource_lrns"`
	ResourceOwnerLRN  *string             `json:"resource_owner_lrn"`
	RequestAPIKeyLRN  *string             `json:"request_api_key_lrn"`
	AdditionalDetails models.AuditDetails `json:"additional_details"` // "{}" when empty
}

// AuditEvent shapes an event as the reference does; lists and details
// are never null there.
func AuditEvent(e models.AuditEvent) AuditEventJSON {
	v := AuditEventJSON{
		EventID:           e.ID,
		EventTime:         e.EventTime.UTC().Format(auditTimeLayout),
		ServiceName:       e.ServiceName,
		ResourceName:      e.ResourceName,
		Action:            e.Action,
		CatalogVersion:    e.CatalogVersion,
		ActorLRN:          e.ActorLRN,
		ResourceLRNs:      e.ResourceLRNs,
		ResourceOwnerLRN:  e.ResourceOwnerLRN,
		RequestAPIKeyLRN:  e.RequestAPIKeyLRN,
		AdditionalDetails: e.AdditionalDetails,
	}
	if v.ResourceLRNs == nil {
		v.ResourceLRNs = []string{}
	}
	return v
}

// AppendAuditEventTime appends t as AuditEvent writes event_time, for
// encoders that write the event without building an AuditEventJSON. It
// writes the digits itself: parsing the layout for each event of a page
// was a sixth of encoding it. Years of other than four digits are left
// to AppendFormat.
func AppendAuditEventTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, auditTimeLayout)
	}
	hour, minute, second := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = appendDigits(append(dst, '-'), int(month), 2)
	dst = appendDigits(append(dst, '-'), day, 2)
	dst = appendDigits(append(dst, 'T'), hour, 2)
	dst = appendDigits(append(dst, ':'), minute, 2)
	dst = appendDigits(append(dst, ':'), second, 2)
	dst = appendDigits(append(dst, '.'), t.Nanosecond()/1000, 6) // truncated, as the layout's .000000
	return append(dst, 'Z')
}

// appendDigits appends n, which is not negative, as width digits,
// zero-padded.
func appendDigits(dst []byte, n, width int) []byte {
	dst = append(dst, make([]byte, width)...)
	for i := len(dst) - 1; i >= len(dst)-width; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
	return dst
}
