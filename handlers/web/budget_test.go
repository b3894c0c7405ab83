package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// An owner sets the budget in dollars (exactly, in cents); a refused
// amount is shown beside its field; a member reads it but has no form,
// and a post of theirs changes nothing.
func TestBudgetForm(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.member(ada, "mia@example.com", models.RoleMember)
	b := e.signedIn("ada@example.com")
	b.get("/budget").expect(http.StatusOK).contains("<h1>Budget</h1>", `id="budget-amount">None`, `name="amount"`)
	b.post("/budget", url.Values{"amount": {"12.345"}}).expect(http.StatusUnprocessableEntity).
		fieldError("amount", "Monthly budget (US dollars) must have at most two decimals (cents).")
	b.post("/budget", url.Values{"amount": {"$1,250.05"}, "stop_launches": {"on"}}).expect(http.StatusSeeOther).redirectsTo("/budget")
	b.get("/budget").expect(http.StatusOK).contains("Budget saved.", `$1250.05 (0% spent)`, `id="budget-stop">Refused`,
		`value="1250.05"`)
	st, err := e.store.BudgetStatus(t.Context(), ada.Actor())
	if err != nil || st.Budget.AmountCents != 125005 || !st.Budget.StopLaunches {
		t.Fatalf("stored %+v, %v", st, err)
	}
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "budget"); n != 1 {
		t.Fatalf("%d budget audit events", n)
	}

	m := e.signedIn("mia@example.com")
	m.switchTo(*ada.AccountID)
	m.get("/budget").expect(http.StatusOK).contains("$1250.05", "Only the account's owners change the budget").lacks(`name="amount"`)
	m.post("/budget", url.Values{"amount": {"1"}}).expect(http.StatusForbidden)
	if st, _ := e.store.BudgetStatus(t.Context(), ada.Actor()); st.Budget.AmountCents != 125005 {
		t.Fatalf("a member changed the budget to %d", st.Budget.AmountCents)
	}
}

// While the month is over a threshold the overview says so, linking to
// the usage and budget pages; past 100% with "stop new launches" the
// launch form refuses with the reason (403) and the instance keeps
// running.
func TestBudgetBannerAndLaunchRefusal(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).lacks("of the budget", "Review the budget")
	e.clock.Set(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	inst := modelstest.InsertInstance(t, e.store, models.Instance{AccountID: *ada.AccountID, Status: models.InstanceActive,
		PriceCentsPerHour: 75})
	if _, err := e.store.SetBudget(t.Context(), ada.Actor(), models.BudgetInput{Amount: dollars("10"), StopLaunches: true}); err != nil {
		t.Fatal(err)
	}
	// Sessions end when idle, so each hour later signs in again.
	at := func(ts time.Time) *browser { e.clock.Set(ts); return e.signedIn("ada@example.com") }
	// 525 cents: 50%, and March's forecast (558.00) over the budget: the
	// banner names the forecast, the higher of the two.
	b = at(time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC))
	b.get("/").expect(http.StatusOK).contains("This month&#39;s spend is forecast to go over the budget",
		"$5.25 of this month&#39;s $10.00 budget is spent; at the current rate the month ends at $558.00.", `<a href="/usage">See your usage`, `<a href="/budget">Review the budget`)
	b = at(time.Date(2026, 3, 1, 14, 0, 0, 0, time.UTC)) // 1050 cents
	b.get("/").expect(http.StatusOK).contains("reached 100% of the budget", "New launches are refused",
		"Monthly budget changed", "Budget threshold reached")
	b.get("/instances/launch")
	b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}}).expect(http.StatusForbidden).
		contains("The instance was not launched", "has reached its monthly budget ($10.00)", "Running instances keep running")
	if got, err := e.store.Instance(t.Context(), ada.Actor(), inst.ID); err != nil || got.Status != models.InstanceActive {
		t.Fatalf("running instance: %+v, %v", got, err)
	}
	at(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)).get("/") // a new month, before its first minute.expect(http.StatusOK).lacks("of the budget")
}

func dollars(s string) *string { return &s }
