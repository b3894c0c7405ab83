package api

// ReferenceAuditPage lets the app's tests compare answers with the
// encoding/json reference.
var ReferenceAuditPage = referenceAuditPage
