package models

import (
	"context"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// WebhookHeader is a header an owner adds to every delivery to one
// endpoint, such as an API gateway's key or a routing tag. Values are not
// treated as secrets: the endpoint's page and the delivery log show them
// (the bearer token and the signature are the endpoint's secrets).
type WebhookHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Bounds on an endpoint's custom headers.
const (
	MaxWebhookHeaders      = 10
	MaxWebhookHeaderName   = 64
	MaxWebhookHeaderValue  = 1024
	MaxWebhookHeadersBytes = 4096 // names and values together
)

// reservedWebhookHeaders are set by cloudplane or by HTTP itself, so an
// owner may not set them: hop-by-hop headers, the framing and the ones
// that authenticate and sign a delivery.
var reservedWebhookHeaders = []string{
	"Authorization", "Connection", "Content-Encoding", "Content-Length", "Content-Type", "Cookie", "Expect",
	"Host", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade", "User-Agent", "Webhook-Id", "Webhook-Signature", "Webhook-Timestamp",
}

// validHeaderName reports whether name is an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// ValidateWebhookHeaders checks headers and returns them with each name
// in its canonical form, rows with neither name nor value dropped. Field
// keys are "headers" for the whole list and "headers.N.name" or
// "headers.N.value" (N from 0, in the order given) for one row.
func ValidateWebhookHeaders(headers []WebhookHeader) ([]WebhookHeader, error) {
	var f FieldErrors
	out := make([]WebhookHeader, 0, len(headers))
	seen := map[string]bool{}
	size := 0
	for i, h := range headers {
		name, value := strings.TrimSpace(h.Name), strings.TrimSpace(h.Value)
		if name == "" && value == "" {
			continue
		}
		key := "headers." + strconv.Itoa(i) + "."
		canonical := textproto.CanonicalMIMEHeaderKey(name)
		switch {
		case name == "":
			f.Add(key+"name", "is required when a value is given")
		case len(name) > MaxWebhookHeaderName:
			f.Add(key+"name", "must be at most "+strconv.Itoa(MaxWebhookHeaderName)+" characters")
		case !validHeaderName(name):
			f.Add(key+"name", "may hold only letters, digits and - _ . ! # $ % & ' * + ^ ` | ~")
		case slices.Contains(reservedWebhookHeaders, canonical) || strings.HasPrefix(canonical, "Proxy-") || strings.HasPrefix(canonical, "Sec-"):
			f.Add(key+"name", canonical+" is set by cloudplane or by HTTP itself; choose another name")
		case seen[canonical]:
			f.Add(key+"name", canonical+" is given twice")
		}
		switch {
		case len(value) > MaxWebhookHeaderValue:
			f.Add(key+"value", "must be at most "+strconv.Itoa(MaxWebhookHeaderValue)+" characters")
		case textProblem(value, false) != "":
			f.Add(key+"value", textProblem(value, false))
		}
		seen[canonical] = true
		size += len(name) + len(value)
		out = append(out, WebhookHeader{Name: canonical, Value: value})
	}
	if len(out) > MaxWebhookHeaders {
		f.Add("headers", "an endpoint may have at most "+strconv.Itoa(MaxWebhookHeaders)+" custom headers")
	} else if size > MaxWebhookHeadersBytes {
		f.Add("headers", "names and values together must be at most "+strconv.Itoa(MaxWebhookHeadersBytes)+" bytes")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// SetWebhookHeaders replaces the custom headers sent with every delivery
// to one of the owner's endpoints (ValidateWebhookHeaders;
// CodeInvalidParameters naming the row). Deliveries already queued carry
// the new headers from their next attempt. Recorded as "webhook
// headers_changed" naming the headers, not their values.
func (s *Store) SetWebhookHeaders(ctx context.Context, actor Actor, id string, headers []WebhookHeader) (*WebhookEndpoint, error) {
	clean, err := ValidateWebhookHeaders(headers)
	if err != nil {
		return nil, err
	}
	return s.changeWebhook(ctx, actor, endpointTarget{id: id}, func(e *WebhookEndpoint, _ bool) (string, map[string]any) {
		if slices.Equal(e.Headers, clean) {
			return "", nil
		}
		e.Headers = clean
		names := make([]string, len(clean))
		for i, h := range clean {
			names[i] = h.Name
		}
		return "headers_changed", map[string]any{"header_names": names}
	})
}
