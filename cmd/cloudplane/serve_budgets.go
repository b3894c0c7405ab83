package main

import (
	"log/slog"
	"time"

	"cloudplane/models"
)

// budgetSweepEvery is how often serve evaluates the accounts' budgets:
// spend grows with time without any write, so a threshold is reached
// between two requests. Each threshold is sent once whatever the number
// of replicas sweeping, so every replica sweeps.
const budgetSweepEvery = time.Minute

// startBudgetSweep runs models.SweepBudgets now and every budgetSweepEvery
// until stop is called (see startSweep).
func startBudgetSweep(store *models.Store, log *slog.Logger) (stop func()) {
	return startSweep(budgetSweepEvery, store.SweepBudgets, sweepLog(log, "budget sweep failed", "budget thresholds sent", "thresholds"))
}
