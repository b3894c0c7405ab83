package webhooks_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// A budget threshold reaches a real receiver subscribed to
// billing.budget_threshold, signed like every event, with the account,
// month, threshold, kind and the amounts in cents; an endpoint that did
// not choose the type gets nothing.
func TestBudgetThresholdIsDelivered(t *testing.T) {
	h := newHarness(t, webhooks.Config{})
	rc := newReceiver(t, status(http.StatusOK))
	e, _, err := h.store.SetWebhook(h.ctx, h.owner, models.SetWebhookInput{URL: rc.URL + "/billing",
		EventTypes: []string{models.EventBillingBudgetThreshold}})
	if err != nil {
		t.Fatal(err)
	}
	other := newReceiver(t, status(http.StatusOK))
	if _, _, err := h.store.CreateWebhookEndpoint(h.ctx, h.owner, models.SetWebhookInput{URL: other.URL + "/tickets"}); err != nil {
		t.Fatal(err)
	}
	verifier, err := standardwebhooks.NewWebhook(e.Secret)
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Set(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	modelstest.InsertInstance(t, h.store, models.Instance{AccountID: h.owner.AccountID, Status: models.InstanceActive,
		PriceCentsPerHour: 75})
	h.clock.Set(time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)) // 600 cents: 50% of $10, forecast 50,400
	h.start()
	if _, err := h.store.SetBudget(h.ctx, h.owner, models.BudgetInput{AmountCents: ptr(int64(1000))}); err != nil {
		t.Fatal(err)
	}
	want := map[string]models.BudgetThresholdEventData{}
	for _, kind := range []string{models.BudgetActual, models.BudgetForecast} {
		pct := map[string]int{models.BudgetActual: 50, models.BudgetForecast: 100}[kind]
		want[kind] = models.BudgetThresholdEventData{Object: "budget_threshold", Account: h.owner.AccountID, Month: "2026-02",
			Threshold: pct, Kind: kind, BudgetCents: 1000, ActualCents: 600, ForecastCents: 28 * 24 * 75}
	}
	for range 2 {
		got := rc.next(t)
		if err := verifier.VerifyIgnoringTimestamp(got.body, got.header); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var body struct {
			Type string
			Test bool
			Data models.BudgetThresholdEventData
		}
		if err := json.Unmarshal(got.body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Type != models.EventBillingBudgetThreshold || body.Test || body.Data != want[body.Data.Kind] {
			t.Fatalf("received %s", got.body)
		}
		delete(want, body.Data.Kind)
	}
	for range 2 {
		if r := h.next(); !r.attempt.Succeeded {
			t.Fatalf("attempt %+v", r)
		}
	}
	var n int64
	if err := h.store.DB().Model(&models.WebhookDelivery{}).Where("endpoint_id <> ?", e.ID).Count(&n).Error; err != nil || n != 0 {
		t.Fatalf("%d deliveries to the endpoint without the type, %v", n, err)
	}
}

func ptr[T any](v T) *T { return &v }
