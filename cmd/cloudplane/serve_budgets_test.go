package main

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// serve's budget sweep evaluates at once, without any request: an account
// whose spend reached its budget gets its thresholds, and stopping the
// sweep returns.
func TestBudgetSweepRunsAndStops(t *testing.T) {
	clock := modelstest.NewClock()
	clock.Set(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	store := modelstest.Open(t, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	modelstest.InsertInstance(t, store, models.Instance{AccountID: *owner.AccountID, Status: models.InstanceActive,
		PriceCentsPerHour: 75})
	// The budget is written directly: SetBudget would evaluate it itself.
	if err := store.DB().Create(&models.Budget{AccountID: *owner.AccountID, AmountCents: 100, UpdatedAt: clock.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 5, 1, 2, 0, 0, 0, time.UTC)) // 150 cents of a $1 budget
	stop := startBudgetSweep(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	testserver.Eventually(t, 10*time.Second, func() bool {
		var n int64
		return store.DB().Model(&models.BudgetAlert{}).Count(&n).Error == nil && n == int64(len(models.BudgetThresholds))
	}, "every threshold sent by the sweep")
	stop()
}
