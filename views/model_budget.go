package views

// NavBudget marks the budget page in the navigation.
const NavBudget = "budget"

// Budget is the budget page: the account's monthly budget, this month's
// spend, and for owners the form that changes them.
type Budget struct {
	HasBudget    bool
	Amount       string // dollars, two decimals
	StopLaunches bool
	Month        string // "November 2026"
	Actual       string // dollars so far this month
	Forecast     string // dollars by the month's end at the current rate
	Percent      string // of the budget spent so far, when there is one
	Over         *Alert // the banner while the month is over a threshold
	CanEdit      bool   // owners change it; members and viewers read it
	Form         Form
	CSRF         string
}
