package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

type budgetOut struct {
	AmountCents       int64  `json:"amount_cents"`
	StopLaunches      bool   `json:"stop_launches"`
	Month             string `json:"month"`
	ActualCents       int64  `json:"actual_cents"`
	ForecastCents     int64  `json:"forecast_cents"`
	ThresholdsReached []struct {
		Kind      string `json:"kind"`
		Threshold int    `json:"threshold"`
	} `json:"thresholds_reached"`
}

// The owner sets the budget in cents; a member reads it but may not set
// it; past the budget with stop_launches a launch is 403
// global/budget-exceeded with a message and suggestion, and what runs
// keeps running.
func TestBudgetAPI(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	e.addSSHKey(e.key, "key")
	_, memberKey := modelstest.Member(t, e.store, e.owner.Actor(), "mia@example.com", models.RoleMember)
	var b budgetOut
	e.do(http.MethodGet, "/api/v1/budget", nil).expect(http.StatusOK).data(&b)
	if b.AmountCents != 0 || b.Month != "2026-06" || len(b.ThresholdsReached) != 0 {
		t.Fatalf("no budget yet: %+v", b)
	}
	e.do(http.MethodPut, "/api/v1/budget", map[string]any{"stop_launches": true}).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	e.do(http.MethodPut, "/api/v1/budget", map[string]any{"amount_cents": -1}).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	e.doAs(memberKey, http.MethodPut, "/api/v1/budget", map[string]any{"amount_cents": 1}).
		expectError(http.StatusForbidden, models.CodeInsufficientScope)
	e.do(http.MethodPut, "/api/v1/budget", map[string]any{"amount_cents": 1000, "stop_launches": true}).expect(http.StatusOK).data(&b)
	if b.AmountCents != 1000 || !b.StopLaunches {
		t.Fatalf("set: %+v", b)
	}
	id := e.launchOne(e.key)
	e.clock.Set(time.Date(2026, 6, 1, 13, 20, 0, 0, time.UTC)) // 800 minutes at 75 cents an hour: 1000 cents
	e.doAs(memberKey, http.MethodGet, "/api/v1/budget", nil).expect(http.StatusOK).data(&b)
	if b.ActualCents != 1000 || b.ForecastCents != 30*24*75 || len(b.ThresholdsReached) != 4 {
		t.Fatalf("at the budget: %+v", b)
	}
	r := e.doAs(memberKey, http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)).
		expectError(http.StatusForbidden, models.CodeBudgetExceeded)
	if !strings.Contains(r.message(), "monthly budget ($10.00)") || !strings.Contains(string(r.Body), `"suggestion"`) {
		t.Fatalf("refusal: %s", r.Body)
	}
	if got := e.instance(e.key, id); got.Status != "active" {
		t.Fatalf("the running instance is %s", got.Status)
	}
}
