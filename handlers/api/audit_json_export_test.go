package api

// ReferenceAuditPage and EncodeAuditPage let the app's tests and
// benchmarks compare the handler's encoding with the encoding/json
// reference on real pages.
var (
	ReferenceAuditPage = referenceAuditPage
	EncodeAuditPage    = encodeAuditPage
)
