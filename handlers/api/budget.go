package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// budgetJSON is the account's budget and this month's spend, in cents.
type budgetJSON struct {
	AmountCents       int64               `json:"amount_cents"` // 0: no budget
	StopLaunches      bool                `json:"stop_launches"`
	Month             string              `json:"month"`
	ActualCents       int64               `json:"actual_cents"`
	ForecastCents     int64               `json:"forecast_cents"`
	ThresholdsReached []budgetThresholdJS `json:"thresholds_reached"`
}

type budgetThresholdJS struct {
	Kind      string `json:"kind"`
	Threshold int    `json:"threshold"`
}

func newBudgetJSON(st *models.BudgetStatus) budgetJSON {
	out := budgetJSON{AmountCents: st.Budget.AmountCents, StopLaunches: st.Budget.StopLaunches,
		Month: st.Spend.Month.Format("2006-01"), ActualCents: st.Spend.ActualCents, ForecastCents: st.Spend.ForecastCents,
		ThresholdsReached: []budgetThresholdJS{}}
	for _, t := range st.Crossed {
		out.ThresholdsReached = append(out.ThresholdsReached, budgetThresholdJS{Kind: t.Kind, Threshold: t.Percent})
	}
	return out
}

// Budget answers the account's monthly budget and this month's spend.
func (h *Handlers) Budget(c *fiber.Ctx) error {
	st, err := h.store.BudgetStatus(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	return ok(c, newBudgetJSON(st))
}

// SetBudget sets the budget from {"amount_cents", "stop_launches"} (owners
// only) and answers it as Budget does.
func (h *Handlers) SetBudget(c *fiber.Ctx) error {
	var in models.BudgetInput
	if err := decode(c, &in); err != nil {
		return err
	}
	if _, err := h.store.SetBudget(c.UserContext(), Actor(c), in); err != nil {
		return err
	}
	return h.Budget(c)
}
