package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// AuditDetails is an audit event's additional details: a JSON object,
// kept as stored. The API sends it on as it is: decoding every event of a
// page into maps and encoding them again was a third of the cost of
// serving the audit log. Map decodes it for those who read the fields.
type AuditDetails []byte

// newAuditDetails encodes details; nil is the empty object.
func newAuditDetails(details map[string]any) (AuditDetails, error) {
	if details == nil {
		return AuditDetails("{}"), nil
	}
	b, err := json.Marshal(details)
	return AuditDetails(b), err
}

// Map decodes the details; details that are empty or do not decode (no
// writer stores such) give an empty map.
func (d AuditDetails) Map() map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(d.orEmpty(), &m)
	return m
}

func (d AuditDetails) orEmpty() []byte {
	if len(d) == 0 {
		return []byte("{}")
	}
	return d
}

// MarshalJSON writes the stored object.
func (d AuditDetails) MarshalJSON() ([]byte, error) { return d.orEmpty(), nil }

// Scan reads the column, a string or bytes by database, into a copy.
func (d *AuditDetails) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*d = AuditDetails(v)
	case []byte:
		*d = append(AuditDetails(nil), v...)
	case nil:
		*d = nil
	default:
		return fmt.Errorf("audit details: cannot read %T", src)
	}
	return nil
}

// Value stores the object as text.
func (d AuditDetails) Value() (driver.Value, error) { return string(d.orEmpty()), nil }
