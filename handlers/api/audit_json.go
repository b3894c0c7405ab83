package api

import (
	"encoding/json"
	"errors"

	"cloudplane/handlers/respond"
	"cloudplane/models"
)

// The audit page is a hot list (scripts follow page_token through it),
// and encoding/json's reflection over its events cost a fifth of serving
// it (issue 24). appendAuditPage writes the same bytes c.JSON wrote for
// respond.AuditEvent's shape, which the tests check.

// auditEventBytes is a generous guess at one encoded event, so a page is
// usually encoded without growing its buffer.
const auditEventBytes = 512

// encodeAuditPage is page's body, in a buffer sized to hold it.
func encodeAuditPage(page *models.AuditPage) ([]byte, error) {
	return appendAuditPage(make([]byte, 0, 64+auditEventBytes*len(page.Events)), page)
}

// appendAuditPage appends page as {"data":[...],"page_token":...}, the
// token null on the last page. Its error is encoding/json's: details that
// are not valid JSON.
func appendAuditPage(dst []byte, page *models.AuditPage) ([]byte, error) {
	dst = append(dst, `{"data":[`...)
	for i := range page.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendAuditEvent(dst, &page.Events[i]); err != nil {
			return nil, err
		}
	}
	dst = append(dst, `],"page_token":`...)
	if page.NextToken == "" {
		dst = append(dst, "null"...)
	} else {
		dst = appendJSONString(dst, page.NextToken)
	}
	return append(dst, '}'), nil
}

// appendAuditEvent appends e as encoding/json marshals respond.AuditEvent(e).
func appendAuditEvent(dst []byte, e *models.AuditEvent) ([]byte, error) {
	dst = append(dst, `{"event_id":`...)
	dst = appendJSONString(dst, e.ID)
	dst = append(dst, `,"event_time":"`...)
	dst = respond.AppendAuditEventTime(dst, e.EventTime) // digits and -:.TZ, nothing to escape
	dst = append(dst, `","service_name":`...)
	dst = appendJSONString(dst, e.ServiceName)
	dst = append(dst, `,"resource_name":`...)
	dst = appendJSONString(dst, e.ResourceName)
	dst = append(dst, `,"action":`...)
	dst = appendJSONString(dst, e.Action)
	dst = append(dst, `,"catalog_version":`...)
	dst = appendJSONString(dst, e.CatalogVersion)
	dst = append(dst, `,"actor_lrn":`...)
	dst = appendJSONStringOrNull(dst, e.ActorLRN)
	dst = append(dst, `,"resource_lrns":[`...)
	for i, lrn := range e.ResourceLRNs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, lrn)
	}
	dst = append(dst, `],"resource_owner_lrn":`...)
	dst = appendJSONStringOrNull(dst, e.ResourceOwnerLRN)
	dst = append(dst, `,"request_api_key_lrn":`...)
	dst = appendJSONStringOrNull(dst, e.RequestAPIKeyLRN)
	dst = append(dst, `,"additional_details":`...)
	dst, err := appendAuditDetails(dst, e.AdditionalDetails)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func appendJSONStringOrNull(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

// errAuditDetails is the error for details that are not valid JSON;
// encoding/json refuses to write them too.
var errAuditDetails = errors.New("audit event: additional_details is not valid JSON")

// appendAuditDetails appends the stored details as encoding/json writes
// a json.Marshaler's output: compacted (whitespace outside strings
// dropped) and HTML-escaped (<, >, & and U+2028, U+2029 as \u escapes),
// the stored text being kept otherwise. Invalid JSON is an error.
func appendAuditDetails(dst []byte, d models.AuditDetails) ([]byte, error) {
	const hex = "0123456789abcdef"
	raw, _ := d.MarshalJSON() // never fails: the stored text, or {}
	if !json.Valid(raw) {
		return nil, errAuditDetails
	}
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[raw[i+2]&0xF])
			i += 2
			start = i + 1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...), nil
}
