package models_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func utc(y int, m time.Month, d, h, min, s int) time.Time {
	return time.Date(y, m, d, h, min, s, 0, time.UTC)
}

// usage reads the actor's usage in [start, end) or fails the test.
func (f *fixture) usage(t *testing.T, actor models.Actor, start, end time.Time) *models.UsageReport {
	t.Helper()
	r, err := f.store.Usage(context.Background(), actor, models.UsageQuery{Start: start, End: end})
	if err != nil {
		t.Fatal(err)
	}
	checkUsageSums(t, r)
	return r
}

// checkUsageSums asserts a report's total is the exact sum of its days,
// its types and its instances.
func checkUsageSums(t *testing.T, r *models.UsageReport) {
	t.Helper()
	var days, types, instances int64
	for _, d := range r.Days {
		days += d.CostCents
	}
	for _, ty := range r.Types {
		types += ty.CostCents
	}
	for _, in := range r.Instances {
		instances += in.CostCents
	}
	if days != r.TotalCents || types != r.TotalCents || instances != r.TotalCents {
		t.Fatalf("total %d, but days sum to %d, types to %d, instances to %d", r.TotalCents, days, types, instances)
	}
}

func TestUsageOfAnInstanceSpanningTwoMonths(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 1, 31, 23, 30, 0))
	ids := f.launch(t, f.alice, models.LaunchInstancesInput{RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"key"}}) // 75 cents an hour
	f.clock.Set(utc(2026, 2, 1, 1, 10, 20))
	if _, err := f.store.TerminateInstances(ctx, f.alice, models.InstanceIDsInput{InstanceIDs: ids}); err != nil {
		t.Fatal(err)
	}
	// It stops accruing when its terminating phase ends, 10 s later:
	// 100 min 30 s, so 101 started minutes, floor(101 × 75 / 60) = 126.
	f.clock.Set(utc(2026, 3, 5, 0, 0, 0))
	whole := f.usage(t, f.alice, utc(2026, 1, 1, 0, 0, 0), utc(2026, 3, 1, 0, 0, 0))
	if whole.TotalCents != 126 || len(whole.Instances) != 1 || whole.Instances[0].Minutes != 101 {
		t.Fatalf("whole life: %d cents, %+v", whole.TotalCents, whole.Instances)
	}
	if got := whole.Instances[0].TerminatedAt; got == nil || !got.Equal(utc(2026, 2, 1, 1, 10, 30)) {
		t.Fatalf("terminated at %v", got)
	}
	// January holds its first 30 minutes: floor(30 × 75 / 60) = 37; the
	// rest, 126 − 37 = 89, is February's, so the months add up.
	jan := f.usage(t, f.alice, utc(2026, 1, 1, 0, 0, 0), utc(2026, 2, 1, 0, 0, 0))
	feb := f.usage(t, f.alice, utc(2026, 2, 1, 0, 0, 0), utc(2026, 3, 1, 0, 0, 0))
	if jan.TotalCents != 37 || feb.TotalCents != 89 {
		t.Fatalf("January %d, February %d cents; want 37 and 89", jan.TotalCents, feb.TotalCents)
	}
	if len(jan.Days) != 31 || jan.Days[30].CostCents != 37 || len(feb.Days) != 28 || feb.Days[0].CostCents != 89 {
		t.Fatalf("days: January %d (last %d), February %d (first %d)", len(jan.Days), jan.Days[30].CostCents, len(feb.Days), feb.Days[0].CostCents)
	}
	// Bob sees none of it.
	if r := f.usage(t, f.bob, utc(2026, 1, 1, 0, 0, 0), utc(2026, 3, 1, 0, 0, 0)); r.TotalCents != 0 || len(r.Instances) != 0 {
		t.Fatalf("bob's usage: %+v", r)
	}
}

func TestUsageKeepsThePriceAtLaunchAndCountsALeapDay(t *testing.T) {
	f := newFixture(t)
	// A price the catalogue does not have (as after a price change): one
	// cent a minute.
	end := utc(2028, 3, 1, 12, 0, 0)
	modelstest.InsertInstance(t, f.store, models.Instance{AccountID: f.alice.AccountID, Status: models.InstanceTerminated,
		CreatedAt: utc(2028, 2, 28, 12, 0, 0), TerminatedAt: &end, PriceCentsPerHour: 60})
	f.clock.Set(utc(2028, 4, 1, 0, 0, 0))
	feb := f.usage(t, f.alice, utc(2028, 2, 1, 0, 0, 0), utc(2028, 3, 1, 0, 0, 0))
	if len(feb.Days) != 29 || feb.Days[27].CostCents != 720 || feb.Days[28].CostCents != 1440 || feb.TotalCents != 2160 {
		t.Fatalf("February 2028: %d days, 28th %d, 29th %d, total %d", len(feb.Days), feb.Days[27].CostCents, feb.Days[28].CostCents, feb.TotalCents)
	}
	mar := f.usage(t, f.alice, utc(2028, 3, 1, 0, 0, 0), utc(2028, 4, 1, 0, 0, 0))
	if mar.TotalCents != 720 || mar.Instances[0].PriceCentsPerHour != 60 {
		t.Fatalf("March 2028: %d cents at %d an hour", mar.TotalCents, mar.Instances[0].PriceCentsPerHour)
	}
}

func TestMonthSpendCountsARunningInstanceSoFarAndForecastsTheRest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 4, 10, 0, 0, 0))
	f.launch(t, f.alice, models.LaunchInstancesInput{RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a100_sxm4", SSHKeyNames: []string{"key"}}) // 129 cents an hour
	f.clock.Set(utc(2026, 4, 20, 0, 0, 30)) // 10 days and 1 started minute
	m, err := f.store.MonthSpend(ctx, f.alice, "")
	if err != nil {
		t.Fatal(err)
	}
	actual := int64((10*24*60 + 1) * 129 / 60)
	forecast := int64(21 * 24 * 60 * 129 / 60) // until April ends
	if m.ActualCents != actual || m.ForecastCents != forecast || !m.Month.Equal(utc(2026, 4, 1, 0, 0, 0)) {
		t.Fatalf("month spend %+v; want %d so far and %d forecast", m, actual, forecast)
	}
	// Support reads it by account; the owner's own id is all an owner gets.
	staff := models.Actor{Role: models.RoleSupport, UserID: models.NewID()}
	if s, err := f.store.MonthSpend(ctx, staff, f.alice.AccountID); err != nil || s.ActualCents != actual {
		t.Fatalf("support's read: %+v, %v", s, err)
	}
	if s, err := f.store.MonthSpend(ctx, f.bob, f.alice.AccountID); err != nil || s.ActualCents != 0 {
		t.Fatalf("bob asking for alice's account got %+v, %v", s, err)
	}
}

func TestUsageRefusesABadPeriod(t *testing.T) {
	f := newFixture(t)
	day := utc(2026, 1, 1, 0, 0, 0)
	for _, q := range []models.UsageQuery{{}, {Start: day}, {Start: day, End: day},
		{Start: day, End: day.AddDate(2, 0, 0)}} {
		if _, err := f.store.Usage(context.Background(), f.alice, q); err == nil {
			t.Errorf("%v – %v: accepted", q.Start, q.End)
		} else if e, ok := models.AsError(err); !ok || e.Code != models.CodeInvalidParameters {
			t.Errorf("%v – %v: %v", q.Start, q.End, err)
		}
	}
}

// TestUsageOfTenThousandInstancesAddsUpExactly checks the sums a year of
// many instances: the months add up to the year, each report's total is
// the sum of its rows, and each instance's whole cost is its started
// minutes at its price.
func TestUsageOfTenThousandInstancesAddsUpExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 10,000 instances")
	}
	f := newFixture(t)
	year := utc(2027, 1, 1, 0, 0, 0)
	f.clock.Set(utc(2027, 12, 20, 13, 7, 41)) // some still run
	want := insertYearOfInstances(t, f.store, f.alice.AccountID, year, 10_000, f.clock.Now())

	whole := f.usage(t, f.alice, year, year.AddDate(1, 0, 0))
	if len(whole.Instances) != len(want) {
		t.Fatalf("%d instances in the year's report, want %d", len(whole.Instances), len(want))
	}
	var sum int64
	for _, in := range whole.Instances {
		if in.Name != "i" || in.RegionName != "us-east-1" {
			t.Fatalf("instance %s named %q in %q", in.InstanceID, in.Name, in.RegionName)
		}
		if in.CostCents != want[in.InstanceID] {
			t.Fatalf("instance %s: %d cents, want %d", in.InstanceID, in.CostCents, want[in.InstanceID])
		}
		sum += in.CostCents
	}
	var months int64
	for m := 0; m < 12; m++ {
		months += f.usage(t, f.alice, year.AddDate(0, m, 0), year.AddDate(0, m+1, 0)).TotalCents
	}
	if months != whole.TotalCents || sum != whole.TotalCents {
		t.Fatalf("year %d cents, months sum to %d, instances to %d", whole.TotalCents, months, sum)
	}
}

// insertYearOfInstances writes n instances launched during the year from
// start, most terminated within days, and returns each one's whole cost as
// of now, computed from its started minutes.
func insertYearOfInstances(tb testing.TB, store *models.Store, accountID string, start time.Time, n int, now time.Time) map[string]int64 {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]models.Instance, n)
	want := make(map[string]int64, n)
	for i := range rows {
		launch := start.Add(time.Duration(rng.Int64N(int64(350 * 24 * time.Hour))).Truncate(time.Second))
		price := int64(models.InstanceTypes[rng.IntN(len(models.InstanceTypes))].PriceCentsPerHour)
		in := models.Instance{ID: models.NewID(), AccountID: accountID, Name: "i", RegionName: "us-east-1",
			InstanceTypeName: "gpu_1x_a10", Status: models.InstanceActive, IP: "198.51.100.1", PrivateIP: "10.0.0.1",
			Hostname: "h", SSHKeyNames: []string{}, Tags: []models.InstanceTag{}, CreatedAt: launch, UpdatedAt: launch,
			PriceCentsPerHour: price}
		stop := now
		if rng.IntN(10) > 0 {
			end := launch.Add(time.Duration(rng.Int64N(int64(9 * 24 * time.Hour))).Truncate(time.Second))
			in.Status, in.TerminatedAt = models.InstanceTerminated, &end
			if end.Before(now) {
				stop = end
			}
		}
		if stop.After(launch) {
			minutes := int64((stop.Sub(launch) + time.Minute - 1) / time.Minute)
			want[in.ID] = minutes * price / 60
		}
		rows[i] = in
	}
	if err := store.DB().CreateInBatches(rows, 500).Error; err != nil {
		tb.Fatal(err)
	}
	return want
}
