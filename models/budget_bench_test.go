package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkEvaluateBudget10k is what one account costs a budget sweep (and
// a launch's check, which reads the same month) when it holds 10,000
// instances this month, half of them terminated, and no threshold is
// left to send: the budget, the month's spend and the sent alerts are
// read; nothing is written.
func BenchmarkEvaluateBudget10k(b *testing.B) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	month := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	clock.Set(month.Add(20 * 24 * time.Hour))
	store := modelstest.Open(b, models.WithClock(clock.Now))
	owner, _ := modelstest.Owner(b, store, "owner@example.com")
	acc := *owner.AccountID
	instances := make([]models.Instance, 10000)
	for i := range instances {
		created := month.Add(time.Duration(i) * time.Minute)
		instances[i] = models.Instance{ID: models.NewID(), AccountID: acc, Name: fmt.Sprintf("run-%05d", i),
			RegionName: "us-east-1", InstanceTypeName: "gpu_1x_a10", Status: models.InstanceActive, PriceCentsPerHour: 75,
			SSHKeyNames: []string{}, Tags: []models.InstanceTag{}, CreatedAt: created, UpdatedAt: created}
		if i%2 == 0 {
			end := created.Add(3 * time.Hour)
			instances[i].Status, instances[i].TerminatedAt = models.InstanceTerminated, &end
		}
	}
	if err := store.DB().CreateInBatches(instances, 500).Error; err != nil {
		b.Fatal(err)
	}
	if err := store.DB().Create(&models.Budget{AccountID: acc, AmountCents: models.MaxBudgetCents, UpdatedAt: clock.Now()}).Error; err != nil {
		b.Fatal(err)
	}
	if err := store.DB().Exec("ANALYZE").Error; err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if n, err := store.EvaluateBudget(ctx, acc); err != nil || n != 0 {
			b.Fatal(n, err)
		}
	}
}
