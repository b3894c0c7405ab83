package models_test

import (
	"fmt"
	"strings"
	"testing"

	"cloudplane/models"
)

func TestValidateWebhookHeaders(t *testing.T) {
	long := strings.Repeat("v", models.MaxWebhookHeaderValue+1)
	cases := []struct {
		name    string
		headers []models.WebhookHeader
		field   string // "" when valid
	}{
		{"ok", []models.WebhookHeader{{"x-gateway-key", "abc"}, {"X-Route", "eu"}}, ""},
		{"blank rows dropped", []models.WebhookHeader{{"", ""}, {" X-A ", " b "}}, ""},
		{"host", []models.WebhookHeader{{"Host", "evil.example"}}, "headers.0.name"},
		{"content-length", []models.WebhookHeader{{"content-length", "1"}}, "headers.0.name"},
		{"signature", []models.WebhookHeader{{"a", "b"}, {"Webhook-Signature", "v1,x"}}, "headers.1.name"},
		{"authorization", []models.WebhookHeader{{"authorization", "Bearer x"}}, "headers.0.name"},
		{"hop-by-hop", []models.WebhookHeader{{"Transfer-Encoding", "chunked"}}, "headers.0.name"},
		{"proxy", []models.WebhookHeader{{"Proxy-Foo", "x"}}, "headers.0.name"},
		{"not a token", []models.WebhookHeader{{"X Bad", "x"}}, "headers.0.name"},
		{"twice", []models.WebhookHeader{{"X-A", "1"}, {"x-a", "2"}}, "headers.1.name"},
		{"value without name", []models.WebhookHeader{{"", "x"}}, "headers.0.name"},
		{"newline in value", []models.WebhookHeader{{"X-A", "a\r\nHost: evil"}}, "headers.0.value"},
		{"long value", []models.WebhookHeader{{"X-A", long}}, "headers.0.value"},
		{"too many", func() []models.WebhookHeader {
			var out []models.WebhookHeader
			for i := 0; i <= models.MaxWebhookHeaders; i++ {
				out = append(out, models.WebhookHeader{Name: "X-H" + strings.Repeat("i", i+1), Value: "1"})
			}
			return out
		}(), "headers"},
		{"too big", func() []models.WebhookHeader {
			var out []models.WebhookHeader
			for i := 0; i < 5; i++ {
				out = append(out, models.WebhookHeader{Name: "X-H" + strings.Repeat("i", i+1), Value: strings.Repeat("v", 1000)})
			}
			return out
		}(), "headers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := models.ValidateWebhookHeaders(c.headers)
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			expectCode(t, err, models.CodeInvalidParameters, c.field)
			if got != nil {
				t.Fatalf("refused yet returned %v", got)
			}
		})
	}
	got, _ := models.ValidateWebhookHeaders([]models.WebhookHeader{{"", ""}, {" x-gateway-key ", " abc "}})
	if len(got) != 1 || got[0] != (models.WebhookHeader{Name: "X-Gateway-Key", Value: "abc"}) {
		t.Fatalf("cleaned %v", got)
	}
}

// Headers are stored with the endpoint, reach the dispatcher's job, are
// audited by name, and are the owner's alone to set.
func TestSetWebhookHeaders(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/")
	if len(e.Headers) != 0 {
		t.Fatalf("a new endpoint has headers %v", e.Headers)
	}
	got, err := f.store.SetWebhookHeaders(f.ctx, f.owner, e.ID, []models.WebhookHeader{{"x-gateway-key", "k1"}})
	if err != nil || len(got.Headers) != 1 || got.Headers[0].Name != "X-Gateway-Key" {
		t.Fatalf("%+v %v", got, err)
	}
	stored, _ := f.store.WebhookEndpoint(f.ctx, f.owner, e.ID)
	if len(stored.Headers) != 1 || stored.Headers[0].Value != "k1" {
		t.Fatalf("stored %v", stored.Headers)
	}
	var audit models.AuditEvent
	if err := f.store.DB().Where("resource_name = ? AND action = ?", "webhook", "headers_changed").Take(&audit).Error; err != nil {
		t.Fatal(err)
	}
	if d := audit.AdditionalDetails.Map(); strings.Contains(fmt.Sprint(audit.AdditionalDetails.Map()), "k1") || d["header_names"] == nil {
		t.Fatalf("audit details %v", d)
	}
	f.incident(f.owner, "GPU")
	jobs := f.attempt(200, false)
	if len(jobs) != 1 || len(jobs[0].Headers) != 1 || jobs[0].Headers[0] != (models.WebhookHeader{Name: "X-Gateway-Key", Value: "k1"}) {
		t.Fatalf("jobs %+v", jobs)
	}
	_, err = f.store.SetWebhookHeaders(f.ctx, f.owner, e.ID, []models.WebhookHeader{{"Host", "x"}})
	expectCode(t, err, models.CodeInvalidParameters, "headers.0.name")
	_, err = f.store.SetWebhookHeaders(f.ctx, f.other, e.ID, nil)
	expectCode(t, err, models.CodeNotFound, "")
	if _, err := f.store.SetWebhookHeaders(f.ctx, f.owner, e.ID, nil); err != nil {
		t.Fatal(err)
	}
	if stored, _ := f.store.WebhookEndpoint(f.ctx, f.owner, e.ID); len(stored.Headers) != 0 {
		t.Fatalf("after clearing %v", stored.Headers)
	}
}
