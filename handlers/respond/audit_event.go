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
// encoders that write the event without building an AuditEventJSON.
func AppendAuditEventTime(dst []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(dst, auditTimeLayout)
}
