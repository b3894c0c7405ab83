package models_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestSetWebhookValidation(t *testing.T) {
	store := modelstest.Open(t) // private destinations not allowed
	owner, _ := modelstest.Owner(t, store, "owner@example.com")
	cases := []struct {
		name  string
		in    models.SetWebhookInput
		field string
	}{
		{"url missing", models.SetWebhookInput{}, "url"},
		{"relative url", models.SetWebhookInput{URL: "/hooks"}, "url"},
		{"other scheme", models.SetWebhookInput{URL: "ftp://hooks.example.com/"}, "url"},
		{"plain http", models.SetWebhookInput{URL: "http://hooks.example.com/"}, "url"},
		{"credentials", models.SetWebhookInput{URL: "https://user:pw@hooks.example.com/"}, "url"},
		{"loopback", models.SetWebhookInput{URL: "https://127.0.0.1/"}, "url"},
		{"localhost", models.SetWebhookInput{URL: "https://localhost:8443/"}, "url"},
		{"private", models.SetWebhookInput{URL: "https://192.168.1.10/"}, "url"},
		{"metadata", models.SetWebhookInput{URL: "https://169.254.169.254/"}, "url"},
		{"mapped loopback", models.SetWebhookInput{URL: "https://[::ffff:127.0.0.1]/"}, "url"},
		{"short token", models.SetWebhookInput{URL: "https://hooks.example.com/", Token: "abc"}, "token"},
		{"token with space", models.SetWebhookInput{URL: "https://hooks.example.com/", Token: "abcdefgh ijklmnopq"}, "token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := store.SetWebhook(t.Context(), owner.Actor(), tc.in)
			expectCode(t, err, models.CodeInvalidParameters, tc.field)
		})
	}
	if _, _, err := store.SetWebhook(t.Context(), models.OperatorActor, models.SetWebhookInput{URL: "https://hooks.example.com/"}); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("an actor without an account set a webhook: %v", err)
	}
}

// The token is returned only by the call that sets it; every change writes
// one audit event that never contains the token.
func TestWebhookTokenIsShownOnceAndChangesAreAudited(t *testing.T) {
	f := newTicketFixture(t)
	e, token, err := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/a"})
	if err != nil || !strings.HasPrefix(token, models.WebhookTokenPrefix) || e.Token != token || !e.Enabled {
		t.Fatalf("create: %+v %q %v", e, token, err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(e.Secret, models.WebhookSecretPrefix))
	if err != nil || len(key) != 32 || !strings.HasPrefix(e.Secret, "whsec_") {
		t.Fatalf("secret %q", e.Secret)
	}
	e2, again, err := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/b"})
	if err != nil || again != "" || e2.Token != token || e2.Secret != e.Secret || e2.ID != e.ID {
		t.Fatalf("update: %+v %q %v", e2, again, err)
	}
	_, given, _ := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/b", Token: "my-own-token-0123456789"})
	_, rotated, _ := f.store.SetWebhook(f.ctx, f.owner, models.SetWebhookInput{URL: "https://hooks.example.com/b", RotateToken: true})
	fresh, err := f.store.RotateWebhookToken(f.ctx, f.owner, e.ID)
	if err != nil || given != "my-own-token-0123456789" || rotated == "" || fresh == rotated || rotated == token {
		t.Fatalf("tokens %q %q %q, %v", given, rotated, fresh, err)
	}
	if _, err := f.store.RotateWebhookToken(f.ctx, f.other, e.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("rotating another account's webhook: %v", err)
	}
	var audits []models.AuditEvent
	f.store.DB().Where("resource_name = ?", "webhook").Order("event_time, id").Find(&audits)
	if len(audits) != 5 || f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "webhook", "created") != 1 {
		t.Fatalf("%d audit events", len(audits))
	}
	for _, a := range audits {
		raw, _ := json.Marshal(a.AdditionalDetails)
		for _, secret := range []string{token, given, rotated, fresh, e.Secret} {
			if strings.Contains(string(raw), secret) {
				t.Fatalf("audit details %s contain a credential", raw)
			}
		}
	}
	if hint := e.TokenHint(); strings.Contains(hint, token[9:]) {
		t.Fatalf("hint %q shows the token", hint)
	}
}

// Disabling an endpoint fails what is pending and stops new deliveries;
// enabling it again lets the owner redeliver the failed ones.
func TestDisablingAndRedeliveringFailed(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/")
	tk := f.incident(f.owner, "one")
	if _, err := f.store.SetWebhookEnabled(f.ctx, f.owner, e.ID, false); err != nil {
		t.Fatal(err)
	}
	if n := f.count(&models.WebhookDelivery{}, "status = ?", models.DeliveryFailed); n != 1 {
		t.Fatalf("%d failed deliveries", n)
	}
	f.incident(f.owner, "while disabled")
	if n := f.count(&models.WebhookDelivery{}, ""); n != 1 {
		t.Fatalf("%d deliveries; none should be made while disabled", n)
	}
	_, err := f.store.RedeliverFailedWebhooks(f.ctx, f.owner, models.RedeliverFailedInput{Since: tk.CreatedAt})
	expectCode(t, err, models.CodeInvalidParameters, "enabled")
	if _, err := f.store.SetWebhookEnabled(f.ctx, f.owner, e.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err = f.store.RedeliverFailedWebhooks(f.ctx, f.owner, models.RedeliverFailedInput{})
	expectCode(t, err, models.CodeInvalidParameters, "since")
	_, err = f.store.RedeliverFailedWebhooks(f.ctx, f.support, models.RedeliverFailedInput{Since: tk.CreatedAt})
	expectCode(t, err, models.CodeInvalidParameters, "account_id")
	n, err := f.store.RedeliverFailedWebhooks(f.ctx, f.support, models.RedeliverFailedInput{AccountID: f.owner.AccountID, Since: tk.CreatedAt})
	if err != nil || n != 1 {
		t.Fatalf("redelivered %d, %v", n, err)
	}
	if n := f.count(&models.WebhookDelivery{}, "status = ? AND tries = 0", models.DeliveryPending); n != 1 {
		t.Fatalf("%d pending deliveries", n)
	}
	var audit models.AuditEvent
	if err := f.store.DB().Where("resource_name = ? AND action = ?", "webhook_delivery", "redelivered").Take(&audit).Error; err != nil {
		t.Fatal(err)
	}
	if *audit.ActorLRN != "lrn:cloud:user:"+f.support.UserID || *audit.ResourceOwnerLRN != "lrn:cloud:account:"+f.owner.AccountID {
		t.Fatalf("audit %+v", audit)
	}
}

func TestSendTestWebhookEvent(t *testing.T) {
	f := newTicketFixture(t)
	if _, err := f.store.SendTestWebhookEvent(f.ctx, f.owner, ""); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("without a webhook: %v", err)
	}
	e := f.webhook(f.owner, "https://hooks.example.com/")
	ev, err := f.store.SendTestWebhookEvent(f.ctx, f.owner, e.ID)
	if err != nil || ev.Type != models.EventWebhookTest || ev.TicketID != nil || !strings.Contains(ev.Payload, `"type":"webhook.test"`) {
		t.Fatalf("%+v, %v", ev, err)
	}
	if n := f.count(&models.WebhookDelivery{}, "event_id = ?", ev.ID); n != 1 {
		t.Fatalf("%d deliveries", n)
	}
	if n := f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "webhook", "tested"); n != 1 {
		t.Fatalf("%d audit events", n)
	}
	_, _ = f.store.SetWebhookEnabled(f.ctx, f.owner, e.ID, false)
	_, err = f.store.SendTestWebhookEvent(f.ctx, f.owner, e.ID)
	expectCode(t, err, models.CodeInvalidParameters, "enabled")
}
