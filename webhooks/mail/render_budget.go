package mail

import (
	"cloudplane/models"
	mailview "cloudplane/views/mail"
)

// budgetMessage tells an owner their account's spend reached a threshold
// of its monthly budget (models.EvaluateBudget queues it).
func budgetMessage(d map[string]string, base string) mailview.Message {
	line := "Your account's spend in " + d["month"] + " has reached " + d["threshold"] + "% of its monthly budget of $" +
		d["budget"] + ": $" + d["actual"] + " so far."
	if d["kind"] == models.BudgetForecast {
		line = "At its current rate your account will spend $" + d["forecast"] + " in " + d["month"] +
			", over its monthly budget of $" + d["budget"] + " ($" + d["actual"] + " so far)."
	}
	return mailview.Message{Heading: "Your account reached a budget threshold",
		Lines: []string{line, "Running instances are never stopped by a budget. See where the money goes on the usage page, " +
			"or change the budget at " + base + "/budget."},
		LinkLabel: "See your usage", LinkURL: base + "/usage"}
}
