package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/views"
)

// usageAccount gives ada an instance that ran all of 1 December 2025 at
// $1.20 an hour ($28.80) and one launched an hour ago at $0.75 an hour,
// the clock being 2 January 2026, 03:04:05 UTC.
func usageAccount(t *testing.T, e *env) *models.User {
	ada := e.owner("ada@example.com")
	dec := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	end := dec.AddDate(0, 0, 1)
	modelstest.InsertInstance(t, e.store, models.Instance{AccountID: *ada.AccountID, Name: "=trainer", Status: models.InstanceTerminated,
		CreatedAt: dec, TerminatedAt: &end, PriceCentsPerHour: 120})
	modelstest.InsertInstance(t, e.store, models.Instance{AccountID: *ada.AccountID, Name: "notebook", Status: models.InstanceActive,
		CreatedAt: e.clock.Now().Add(-time.Hour), PriceCentsPerHour: 75})
	return ada
}

func TestUsagePageShowsTheMonthByDayTypeAndInstance(t *testing.T) {
	e := newEnv(t)
	usageAccount(t, e)
	b := e.signedIn("ada@example.com")
	// January so far: one hour at 75 cents; the forecast runs it to 1 February.
	minutes := int64((time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Sub(e.clock.Now().Add(-time.Hour)) + time.Minute - 1) / time.Minute)
	forecast := views.Cents(minutes * 75 / 60)
	b.get("/usage").expect(http.StatusOK).
		contains("<h1>Usage</h1>", "January 2026 (UTC)", "Month to date", "$0.75", "Forecast to month end", forecast,
			`href="/budget"`, `<option value="2026-01" selected>January 2026 · $0.75</option>`,
			`<option value="2025-12">December 2025 · $28.80</option>`,
			`<svg class="delivery-chart-svg"`, "2 Jan 2026 (UTC): $0.75", "notebook", "gpu_1x_a10", `href="/usage"`).
		lacks("=trainer")
	b.get("/usage?month=2025-12").expect(http.StatusOK).
		contains("Month total", "$28.80", "=trainer", "1 Dec 2025 (UTC): $28.80", "1 d 0 h 0 min", "$1.20 / hour").
		lacks("Forecast to month end", "notebook")
	b.get("/usage?month=December").expect(http.StatusUnprocessableEntity)
}

func TestUsageExportsDaysAndInstancesAsCSV(t *testing.T) {
	e := newEnv(t)
	usageAccount(t, e)
	b := e.signedIn("ada@example.com")
	days := b.get("/usage/export?month=2025-12&rows=days").expect(http.StatusOK).
		hasHeader("Content-Disposition", `attachment; filename="cloudplane-usage-2025-12-days.csv"`)
	days.contains("date_utc,cost_cents,cost_usd\n2025-12-01,2880,28.80\n2025-12-02,0,0.00\n")
	b.get("/usage/export?month=2025-12&rows=instances").expect(http.StatusOK).
		contains("instance_id,instance_name,instance_type,region,price_cents_per_hour,launched_at_utc,terminated_at_utc,minutes_in_month,cost_cents,cost_usd\n",
			",'=trainer,gpu_1x_a10,us-east-1,120,2025-12-01T00:00:00Z,2025-12-02T00:00:00Z,1440,2880,28.80\n")
	b.get("/usage/export?month=2025-12&rows=everything").expect(http.StatusUnprocessableEntity)
}

func TestOverviewShowsTheMonthsSpendAndForecast(t *testing.T) {
	e := newEnv(t)
	usageAccount(t, e)
	minutes := int64((time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Sub(e.clock.Now().Add(-time.Hour)) + time.Minute - 1) / time.Minute)
	e.signedIn("ada@example.com").get("/").expect(http.StatusOK).
		contains(`id="overview-spend"`, "Spent in January (UTC)", `<p class="tile-count">$0.75</p>`,
			"Forecast "+views.Cents(minutes*75/60)+" by month end", `href="/usage"`)
}

func TestInstancesShowUptimeAndSpendSoFar(t *testing.T) {
	e := newEnv(t)
	ada := usageAccount(t, e)
	b := e.signedIn("ada@example.com")
	e.clock.Advance(30*time.Minute + time.Second) // 1 h 30 min 1 s: 91 started minutes
	b.get("/instances").expect(http.StatusOK).contains("Uptime and spend", "1 h 31 min", views.Cents(91*75/60)+" so far")
	list, err := e.store.Instances(t.Context(), ada.Actor())
	if err != nil || len(list) != 1 {
		t.Fatalf("%d instances, %v", len(list), err)
	}
	b.get("/instances/"+list[0].ID).expect(http.StatusOK).
		contains(`<span id="instance-spend">1 h 31 min · `+views.Cents(91*75/60)+`</span>`, "$0.75 / hour")
}

func TestLaunchFormQuotesTypeTimesQuantity(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	// Without script: every type's prices, and a prompt until a type is chosen.
	b.get("/instances/launch").expect(http.StatusOK).
		contains(`id="launch-price"`, "Choose an instance type to see what the launch costs.", "Prices per type",
			"<th scope=\"row\"><code>gpu_8x_h100_sxm5</code></th><td>$23.92</td><td>$17,461.60</td>", `name="quantity"`)
	// htmx asks for the fragment when the type or quantity changes.
	b.get("/instances/launch/price?instance_type_name=gpu_8x_h100_sxm5&quantity=3").expect(http.StatusOK).
		contains("3 × gpu_8x_h100_sxm5: $71.76 / hour", "$52,384.80 / month (730 h)").lacks("<html")
	b.get("/instances/launch/price?instance_type_name=gpu_1x_a10&quantity=").expect(http.StatusOK).
		contains("1 × gpu_1x_a10: $0.75 / hour", "$547.50 / month")
	b.get("/instances/launch/price?instance_type_name=gpu_1x_a10&quantity=99").expect(http.StatusOK).
		contains("Choose an instance type")
}

func TestLaunchFormLaunchesAQuantity(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}, "quantity": {"two"}}).expect(http.StatusUnprocessableEntity).
		contains("must be a whole number")
	b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}, "quantity": {"2"}}).expect(http.StatusSeeOther)
	if list, _ := e.store.Instances(t.Context(), ada.Actor()); len(list) != 2 {
		t.Fatalf("%d instances, want 2", len(list))
	}
}

func TestSupportSeesEachAccountsMonthSpend(t *testing.T) {
	e := newEnv(t)
	ada := usageAccount(t, e)
	e.owner("bob@example.com")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/accounts").expect(http.StatusOK).
		contains(`<th scope="col">This month</th>`, `class="account-spend">$0.75`, `class="account-spend">$0.00`)
	s.get("/accounts/" + *ada.AccountID).expect(http.StatusOK).contains(`<dd id="account-spend">$0.75 · forecast `)
}

// Viewers read the account's usage too; support staff have no account of
// their own to read (they see each account's spend on the accounts pages).
func TestViewersReadUsage(t *testing.T) {
	e := newEnv(t)
	ada := usageAccount(t, e)
	e.member(ada, "vic@example.com", models.RoleViewer)
	b := e.signedIn("vic@example.com")
	b.switchTo(*ada.AccountID)
	b.get("/usage?month=2025-12").expect(http.StatusOK).contains("$28.80", "=trainer")
	b.get("/usage/export?month=2025-12&rows=days").expect(http.StatusOK).contains("2025-12-01,2880,28.80")
	e.user("help@example.com", models.RoleSupport)
	e.signedIn("help@example.com").get("/usage").expect(http.StatusUnprocessableEntity)
}
