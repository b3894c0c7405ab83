package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Budget shows the account's monthly budget and this month's spend;
// owners get the form that changes them.
func (h *Handlers) Budget(c *fiber.Ctx) error {
	return h.budgetPage(c, fiber.StatusOK, nil)
}

// SaveBudget sets the owner's budget from the form: the amount in dollars
// and the "stop new launches" box. A refused amount is shown beside its
// field (422) and nothing changes.
func (h *Handlers) SaveBudget(c *fiber.Ctx) error {
	amount := c.FormValue("amount")
	in := models.BudgetInput{Amount: &amount, StopLaunches: c.FormValue("stop_launches") == "on"}
	if _, err := h.store.SetBudget(c.UserContext(), actor(c), in); err != nil {
		form := &views.Form{Values: map[string]string{"amount": amount, "stop_launches": c.FormValue("stop_launches")}}
		status, err := formError(err, form)
		if err != nil {
			return err
		}
		showAt(c, "/budget")
		return h.budgetPage(c, status, form)
	}
	if err := h.flash(c, "Budget saved."); err != nil {
		return err
	}
	return redirect(c, "/budget")
}

// budgetPage renders the page; form, when given, is a refused post's.
func (h *Handlers) budgetPage(c *fiber.Ctx, status int, form *views.Form) error {
	a := actor(c)
	st, err := h.store.BudgetStatus(c.UserContext(), a)
	if err != nil {
		return err
	}
	b := st.Budget
	v := views.Budget{HasBudget: b.AmountCents > 0, Amount: models.FormatDollars(b.AmountCents), StopLaunches: b.StopLaunches,
		Month: st.Spend.Month.Format("January 2006"), Actual: models.FormatDollars(st.Spend.ActualCents),
		Forecast: models.FormatDollars(st.Spend.ForecastCents), Over: budgetAlert(st), CanEdit: a.Owns(), CSRF: csrfToken(c)}
	if b.AmountCents > 0 {
		v.Percent = strconv.FormatInt(st.Spend.ActualCents*100/b.AmountCents, 10)
	}
	if form != nil {
		v.Form = *form
	} else if v.HasBudget {
		v.Form.Values = map[string]string{"amount": v.Amount, "stop_launches": map[bool]string{true: "on"}[b.StopLaunches]}
	}
	return h.page(c, status, "Budget", views.NavBudget, views.BudgetPage(v))
}

// budgetAlert is the banner while the month's spend is over a threshold
// of the budget, naming the highest one; nil when it is over none.
func budgetAlert(st *models.BudgetStatus) *views.Alert {
	t, over := st.Over()
	if !over {
		return nil
	}
	spent := "$" + models.FormatDollars(st.Spend.ActualCents) + " of this month's $" + models.FormatDollars(st.Budget.AmountCents) + " budget is spent"
	a := &views.Alert{Kind: views.Warning, Title: "This month's spend has reached " + strconv.Itoa(t.Percent) + "% of the budget",
		Text: spent + ".", Href: "/usage", Link: "See your usage", Href2: "/budget", Link2: "Review the budget"}
	if t.Kind == models.BudgetForecast {
		a.Title = "This month's spend is forecast to go over the budget"
		a.Text = spent + "; at the current rate the month ends at $" + models.FormatDollars(st.Spend.ForecastCents) + "."
	}
	if t.Kind == models.BudgetActual && t.Percent >= 100 {
		a.Kind = views.Danger
		if st.Budget.StopLaunches {
			a.Text += " New launches are refused until the budget is raised or the month ends; running instances keep running."
		}
	}
	return a
}

// overviewBudgetAlerts is the overview's budget banner, if any.
func (h *Handlers) overviewBudgetAlerts(c *fiber.Ctx) ([]views.Alert, error) {
	st, err := h.store.BudgetStatus(c.UserContext(), actor(c))
	if err != nil {
		return nil, err
	}
	if a := budgetAlert(st); a != nil {
		return []views.Alert{*a}, nil
	}
	return nil, nil
}
