package models_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestParseDollarsIsExact(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "0": 0, "12": 1200, "12.5": 1250, "12.05": 1205, "$1,250.99": 125099,
		".5": 50, "7.": 700, " 0.01 ": 1, "10000000": 1_000_000_000, "0.29": 29, "1.15": 115} {
		got, err := models.ParseDollars(in)
		if err != nil || got != want {
			t.Errorf("ParseDollars(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{".", "1.234", "-5", "1e3", "abc", "1.2.3", "12345678901"} {
		if got, err := models.ParseDollars(in); err == nil {
			t.Errorf("ParseDollars(%q) = %d, want an error", in, got)
		}
	}
	if s := models.FormatDollars(125005); s != "1250.05" {
		t.Errorf("FormatDollars = %q", s)
	}
}

func TestSetBudgetIsOwnersAndAudited(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	member, _ := modelstest.Member(t, f.store, f.alice, "mia@example.com", models.RoleMember)
	if _, err := f.store.SetBudget(ctx, member, models.BudgetInput{Amount: dollars("10")}); models.ErrorCode(err) != models.CodeInsufficientScope {
		t.Fatalf("member sets a budget: %v", err)
	}
	_, err := f.store.SetBudget(ctx, f.alice, models.BudgetInput{Amount: dollars("10.123")})
	if e, ok := models.AsError(err); !ok || e.Code != models.CodeInvalidParameters || e.Fields["amount"] == "" {
		t.Fatalf("three decimals: %v", err)
	}
	before := modelstest.AuditCount(t, f.store, f.alice.AccountID, "budget")
	for range 2 { // the second changes nothing and records nothing
		if _, err := f.store.SetBudget(ctx, f.alice, models.BudgetInput{Amount: dollars("1,250.50"), StopLaunches: true}); err != nil {
			t.Fatal(err)
		}
	}
	if n := modelstest.AuditCount(t, f.store, f.alice.AccountID, "budget"); n != before+1 {
		t.Fatalf("%d budget audit events, want %d", n, before+1)
	}
	st, err := f.store.BudgetStatus(ctx, member)
	if err != nil || st.Budget.AmountCents != 125050 || !st.Budget.StopLaunches {
		t.Fatalf("member reads %+v, %v", st, err)
	}
}

// budgetCounts are what a month's thresholds left behind for an account.
type budgetCounts struct{ alerts, mails, events, deliveries, audits int64 }

func (f *fixture) budgetCounts(t *testing.T, accountID string) budgetCounts {
	t.Helper()
	db := f.store.DB()
	var c budgetCounts
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Model(&models.BudgetAlert{}).Where("account_id = ?", accountID).Count(&c.alerts).Error)
	must(db.Model(&models.MailMessage{}).Where("kind = ?", models.MailBudgetThreshold).Count(&c.mails).Error)
	must(db.Model(&models.WebhookEvent{}).Where("account_id = ? AND type = ?", accountID, models.EventBillingBudgetThreshold).Count(&c.events).Error)
	must(db.Model(&models.WebhookDelivery{}).Joins("JOIN webhook_events ON webhook_events.id = webhook_deliveries.event_id").
		Where("webhook_events.type = ?", models.EventBillingBudgetThreshold).Count(&c.deliveries).Error)
	must(db.Model(&models.AuditEvent{}).Where("account_id = ? AND resource_name = ? AND action = ?", accountID, "budget", "threshold_reached").Count(&c.audits).Error)
	return c
}

// budgetAccount gives alice a $10.00 budget, a member (who gets no budget
// mail) and an endpoint subscribed to billing.budget_threshold.
func (f *fixture) budgetAccount(t *testing.T, stop bool) {
	t.Helper()
	ctx := context.Background()
	modelstest.Member(t, f.store, f.alice, "mia@example.com", models.RoleMember)
	if _, _, err := f.store.CreateWebhookEndpoint(ctx, f.alice, models.SetWebhookInput{URL: "https://hooks.example.com/b",
		EventTypes: []string{models.EventBillingBudgetThreshold}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SetBudget(ctx, f.alice, models.BudgetInput{Amount: dollars("10"), StopLaunches: stop}); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetThresholdsOncePerMonth(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 3, 1, 0, 0, 0))
	f.budgetAccount(t, false)
	// One gpu_1x_a10 at 75 cents an hour: the launch itself puts March's
	// forecast (31 × 24 × 75 = 55,800 cents) over the $10.00 budget.
	f.launch(t, f.alice, launchInput("us-east-1", 1))
	if c := f.budgetCounts(t, f.alice.AccountID); c != (budgetCounts{1, 1, 1, 1, 1}) {
		t.Fatalf("after the launch: %+v, want the forecast's alert, mail, event, delivery and audit event", c)
	}
	sweep := func(at time.Time, want int) {
		t.Helper()
		f.clock.Set(at)
		if n, err := f.store.SweepBudgets(ctx); err != nil || n != want {
			t.Fatalf("sweep at %v sent %d, %v; want %d", at, n, err, want)
		}
	}
	sweep(utc(2026, 3, 1, 6, 39, 0), 0) // 399 minutes: 498 cents, under 50%
	sweep(utc(2026, 3, 1, 6, 39, 1), 1) // the 400th minute began: 500 cents, 50% exactly
	sweep(utc(2026, 3, 1, 6, 50, 0), 0)
	sweep(utc(2026, 3, 1, 13, 20, 1), 2) // 801 minutes: 1001 cents, 80% and 100% at once: both
	sweep(utc(2026, 3, 20, 0, 0, 0), 0)  // everything sent this month
	if c := f.budgetCounts(t, f.alice.AccountID); c != (budgetCounts{4, 4, 4, 4, 4}) {
		t.Fatalf("March: %+v, want 4 of each (owner only, not the member)", c)
	}
	var ev models.WebhookEvent
	if err := f.store.DB().Where("type = ?", models.EventBillingBudgetThreshold).Order("created_at DESC, id").
		First(&ev).Error; err != nil {
		t.Fatal(err)
	}
	var env struct {
		Data models.BudgetThresholdEventData
	}
	if err := json.Unmarshal([]byte(ev.Payload), &env); err != nil {
		t.Fatal(err)
	}
	if d := env.Data; d.Account != f.alice.AccountID || d.Month != "2026-03" || d.BudgetCents != 1000 ||
		d.ActualCents != 1001 || d.ForecastCents != 55800 || d.Kind != models.BudgetActual || d.Threshold < 80 {
		t.Fatalf("event data %+v", d)
	}
	// April starts afresh: at 00:30 the forecast is over the budget again.
	sweep(utc(2026, 4, 1, 0, 30, 0), 1)
	var april models.BudgetAlert
	if err := f.store.DB().Where("month = ?", "2026-04").Take(&april).Error; err != nil ||
		april.Kind != models.BudgetForecast || april.ActualCents != 37 || april.ForecastCents != 30*24*75 {
		t.Fatalf("April's alert %+v, %v", april, err)
	}
}

func TestBudgetStopsLaunchesNotInstances(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 5, 10, 0, 0, 0))
	f.budgetAccount(t, true)
	ids := f.launch(t, f.alice, launchInput("us-east-1", 1))
	f.clock.Set(utc(2026, 5, 10, 13, 19, 0)) // 799 minutes: 998 cents, still allowed
	f.launch(t, f.alice, launchInput("us-east-1", 1))
	f.clock.Set(utc(2026, 5, 10, 13, 20, 0)) // the first one alone: 800 minutes, 1000 cents
	st, err := f.store.BudgetStatus(ctx, f.alice)
	if err != nil {
		t.Fatal(err)
	}
	if st.Spend.ActualCents < 1000 {
		t.Fatalf("spend %d, the test needs the budget reached", st.Spend.ActualCents)
	}
	_, err = f.store.LaunchInstances(ctx, f.alice, launchInput("us-east-1", 1))
	if e, ok := models.AsError(err); !ok || e.Code != models.CodeBudgetExceeded || e.Suggestion == "" {
		t.Fatalf("launch past the budget: %v", err)
	}
	if d := f.instance(t, f.alice, ids[0]); d.Status == models.InstanceTerminated || d.Status == models.InstanceTerminating {
		t.Fatalf("a running instance was stopped: %s", d.Status)
	}
	// Without the option the budget only warns.
	if _, err := f.store.SetBudget(ctx, f.alice, models.BudgetInput{Amount: dollars("10")}); err != nil {
		t.Fatal(err)
	}
	f.launch(t, f.alice, launchInput("us-east-1", 1))
}

// Several replicas evaluating the same account at the same moment send
// each threshold once: one alert row, one audit event, one mail, one
// event.
func TestBudgetThresholdsOnceAcrossReplicas(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 7, 1, 0, 0, 0))
	// The instance is inserted directly, so no launch evaluates first.
	modelstest.InsertInstance(t, f.store, models.Instance{AccountID: f.alice.AccountID, InstanceTypeName: "gpu_1x_a10",
		RegionName: "us-east-1", Status: models.InstanceActive, PriceCentsPerHour: 75, CreatedAt: utc(2026, 7, 1, 0, 0, 0)})
	f.budgetAccount(t, false)
	// SetBudget evaluated already; a second account is evaluated by the replicas only.
	modelstest.InsertInstance(t, f.store, models.Instance{AccountID: f.bob.AccountID, InstanceTypeName: "gpu_1x_a10",
		RegionName: "us-east-1", Status: models.InstanceActive, PriceCentsPerHour: 75, CreatedAt: utc(2026, 7, 1, 0, 0, 0)})
	f.clock.Set(utc(2026, 7, 2, 0, 0, 0)) // 1800 cents: every threshold of a $10 budget
	f.store.DB().Create(&models.Budget{AccountID: f.bob.AccountID, AmountCents: 1000, UpdatedAt: f.clock.Now()})
	replicas := []*models.Store{f.store}
	for range 3 {
		replicas = append(replicas, modelstest.OpenAt(t, f.dsn, models.WithClock(f.clock.Now), models.WithConfig(f.cfg)))
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := replicas[i%len(replicas)]
			var err error
			if i%2 == 0 {
				_, err = s.SweepBudgets(ctx)
			} else {
				_, err = s.EvaluateBudget(ctx, f.bob.AccountID)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, id := range []string{f.alice.AccountID, f.bob.AccountID} {
		c := f.budgetCounts(t, id)
		if c.alerts != 4 || c.events != 4 || c.audits != 4 {
			t.Errorf("account %s: %+v, want 4 alerts, events and audit events", id, c)
		}
	}
	if c := f.budgetCounts(t, f.alice.AccountID); c.mails != 8 || c.deliveries != 4 {
		t.Errorf("%d mails (one per owner and threshold: 8) and %d deliveries (alice's endpoint: 4)", c.mails, c.deliveries)
	}
}

func dollars(s string) *string { return &s }

// The event catalogue lists billing.budget_threshold with an example of
// the very shape a real event has, and endpoints may subscribe to it.
func TestBudgetEventInCatalogue(t *testing.T) {
	if !slices.Contains(models.WebhookEventTypes, models.EventBillingBudgetThreshold) ||
		!slices.Contains(models.SubscribableEventTypes, models.EventBillingBudgetThreshold) {
		t.Fatal("billing.budget_threshold is not in the catalogue or not subscribable")
	}
	raw, err := models.ExampleWebhookEvent(models.EventBillingBudgetThreshold, utc(2026, 11, 26, 12, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Type string
		Data map[string]any
	}
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"account", "month", "threshold", "kind", "budget_cents", "actual_cents", "forecast_cents"} {
		if _, ok := env.Data[k]; !ok {
			t.Errorf("example lacks %q: %s", k, raw)
		}
	}
	if env.Type != models.EventBillingBudgetThreshold || env.Data["month"] != "2026-11" {
		t.Fatalf("example %s", raw)
	}
}

// Two replicas that both read a threshold as unsent both try to send it:
// the unique row lets the first one through and turns the second into
// nothing, with no second mail, event or audit event.
func TestBudgetAlertSentOnceWhenBothReplicasTry(t *testing.T) {
	f := newFixture(t)
	f.clock.Set(utc(2026, 8, 1, 0, 0, 0))
	f.budgetAccount(t, false) // no spend yet: nothing sent
	a := models.BudgetAlert{AccountID: f.alice.AccountID, Month: "2026-08", Kind: models.BudgetActual, Percent: 50,
		BudgetCents: 1000, ActualCents: 500, ForecastCents: 900, CreatedAt: f.clock.Now()}
	replica := modelstest.OpenAt(t, f.dsn, models.WithClock(f.clock.Now), models.WithConfig(f.cfg))
	first, err := f.store.SendBudgetAlert(context.Background(), a)
	if err != nil || !first {
		t.Fatalf("first: %v, %v", first, err)
	}
	second, err := replica.SendBudgetAlert(context.Background(), a)
	if err != nil || second {
		t.Fatalf("second: %v, %v", second, err)
	}
	if c := f.budgetCounts(t, f.alice.AccountID); c != (budgetCounts{1, 1, 1, 1, 1}) {
		t.Fatalf("%+v, want one of each", c)
	}
}
