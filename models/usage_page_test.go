package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
)

// TestUsagePagesAddUpToTheTotal pages through 250 instances: every
// instance comes exactly once, and the pages' rows sum to the total even
// though the clock moves between pages (later pages read at the first
// page's instant).
func TestUsagePagesAddUpToTheTotal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	year := utc(2027, 1, 1, 0, 0, 0)
	f.clock.Set(utc(2027, 3, 10, 8, 0, 0))
	insertYearOfInstances(t, f.store, f.alice.AccountID, year, 3000, f.clock.Now())
	in := models.UsageInput{Start: "2027-02-01", End: "2027-02-28"}
	seen := map[string]bool{}
	var sum, total int64
	pages := 0
	for {
		p, err := f.store.UsagePage(ctx, f.alice, in)
		if err != nil {
			t.Fatal(err)
		}
		if pages == 0 {
			total = p.TotalCents
			if !p.Start.Equal(utc(2027, 2, 1, 0, 0, 0)) || !p.End.Equal(utc(2027, 3, 1, 0, 0, 0)) || len(p.Days) != 28 {
				t.Fatalf("period %v – %v, %d days", p.Start, p.End, len(p.Days))
			}
		} else if p.TotalCents != total {
			t.Fatalf("page %d total %d, first page said %d", pages, p.TotalCents, total)
		}
		if len(p.Instances) > models.UsagePageSize {
			t.Fatalf("page of %d rows", len(p.Instances))
		}
		for _, r := range p.Instances {
			if seen[r.InstanceID] {
				t.Fatalf("instance %s on two pages", r.InstanceID)
			}
			seen[r.InstanceID] = true
			if r.Name != "i" || r.RegionName != "us-east-1" {
				t.Fatalf("instance %s named %q in %q", r.InstanceID, r.Name, r.RegionName)
			}
			sum += r.CostCents
		}
		pages++
		f.clock.Set(f.clock.Now().Add(7 * time.Minute)) // running instances accrue meanwhile
		if p.NextPageToken == "" {
			break
		}
		in.PageToken = p.NextPageToken
	}
	if pages < 2 || sum != total || total == 0 {
		t.Fatalf("%d pages, rows sum to %d, total %d", pages, sum, total)
	}
}

func TestUsagePageRefusesBadParameters(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2028, 1, 10, 8, 0, 0))
	insertYearOfInstances(t, f.store, f.alice.AccountID, utc(2027, 1, 1, 0, 0, 0), 150, f.clock.Now())
	p, err := f.store.UsagePage(ctx, f.alice, models.UsageInput{Start: "2027-01-01", End: "2027-12-31"})
	if err != nil || p.NextPageToken == "" {
		t.Fatalf("first page: %v", err)
	}
	for _, c := range []struct {
		in    models.UsageInput
		field string
	}{
		{models.UsageInput{Start: "yesterday"}, "start"},
		{models.UsageInput{Start: "2027-01-01", End: "2027-13-01"}, "end"},
		{models.UsageInput{Start: "2027-02-01", End: "2027-01-01"}, "end"},
		{models.UsageInput{Start: "2025-01-01", End: "2027-01-01"}, "end"},
		{models.UsageInput{Start: "2027-01-01", End: "2027-12-31", PageToken: p.NextPageToken + "x"}, "page_token"},
		// A token is bound to its period and account.
		{models.UsageInput{Start: "2027-01-01", End: "2027-12-30", PageToken: p.NextPageToken}, "page_token"},
	} {
		_, err := f.store.UsagePage(ctx, f.alice, c.in)
		if e, ok := models.AsError(err); !ok || e.Code != models.CodeInvalidParameters || e.Fields[c.field] == "" {
			t.Errorf("%+v: %v, want invalid %s", c.in, err, c.field)
		}
	}
	_, err = f.store.UsagePage(ctx, f.bob, models.UsageInput{Start: "2027-01-01", End: "2027-12-31", PageToken: p.NextPageToken})
	if e, ok := models.AsError(err); !ok || e.Fields["page_token"] == "" {
		t.Errorf("bob with alice's token: %v", err)
	}
}

func TestUsageMonthsListsMonthsSinceTheFirstInstance(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 11, 30, 23, 0, 0))
	f.launch(t, f.alice, models.LaunchInstancesInput{RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"key"}}) // 75 cents an hour
	f.clock.Set(utc(2027, 2, 1, 0, 30, 0))
	months, err := f.store.UsageMonths(ctx, f.alice, "")
	if err != nil {
		t.Fatal(err)
	}
	// February so far (30 minutes), January, December, an hour of November.
	want := []int64{30 * 75 / 60, 31 * 24 * 75, 31 * 24 * 75, 75}
	if len(months) != 4 || !months[0].Month.Equal(utc(2027, 2, 1, 0, 0, 0)) || !months[3].Month.Equal(utc(2026, 11, 1, 0, 0, 0)) {
		t.Fatalf("months %+v", months)
	}
	for i, m := range months {
		if m.TotalCents != want[i] {
			t.Errorf("%s: %d cents, want %d", m.Month.Format("2006-01"), m.TotalCents, want[i])
		}
	}
	if empty, err := f.store.UsageMonths(ctx, f.bob, ""); err != nil || len(empty) != 1 || empty[0].TotalCents != 0 {
		t.Fatalf("an account without instances: %+v, %v", empty, err)
	}
}

func TestMonthSpendsReadsManyAccountsForSupportOnly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2026, 4, 10, 0, 0, 0))
	for _, a := range []models.Actor{f.alice, f.bob} {
		f.launch(t, a, models.LaunchInstancesInput{RegionName: "us-east-1",
			InstanceTypeName: "gpu_1x_a100_sxm4", SSHKeyNames: []string{"key"}})
	}
	f.launch(t, f.bob, models.LaunchInstancesInput{RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"key"}})
	f.clock.Set(utc(2026, 4, 20, 0, 0, 30))
	staff := models.Actor{Role: models.RoleSupport, UserID: models.NewID()}
	nobody := models.NewID()
	got, err := f.store.MonthSpends(ctx, staff, []string{f.alice.AccountID, f.bob.AccountID, nobody})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{f.alice.AccountID, f.bob.AccountID, nobody} {
		one, err := f.store.MonthSpend(ctx, staff, id)
		if id == nobody {
			one, err = &models.MonthSpend{}, nil
		}
		if err != nil || got[id].ActualCents != one.ActualCents || got[id].ForecastCents != one.ForecastCents {
			t.Errorf("%s: batch %+v, alone %+v (%v)", id, got[id], one, err)
		}
	}
	if got[f.bob.AccountID].ActualCents <= got[f.alice.AccountID].ActualCents {
		t.Errorf("bob runs more than alice: %+v", got)
	}
	if _, err := f.store.MonthSpends(ctx, f.alice, []string{f.bob.AccountID}); err == nil {
		t.Error("an owner read other accounts' spend")
	}
}

func TestEstimateLaunchAndSpendSoFar(t *testing.T) {
	e, err := models.EstimateLaunch("gpu_8x_h100_sxm5", 3)
	if err != nil || e.PriceCentsPerHour != 2392 || e.PerHourCents != 3*2392 || e.PerMonthCents != 3*2392*730 {
		t.Fatalf("estimate %+v, %v", e, err)
	}
	for _, c := range []struct {
		name  string
		q     int
		field string
	}{{"nope", 1, "instance_type_name"}, {"gpu_1x_a10", 0, "quantity"}, {"gpu_1x_a10", models.MaxLaunchQuantity + 1, "quantity"}} {
		if _, err := models.EstimateLaunch(c.name, c.q); err == nil {
			t.Errorf("%s × %d accepted", c.name, c.q)
		} else if e, _ := models.AsError(err); e.Fields[c.field] == "" {
			t.Errorf("%s × %d: %v", c.name, c.q, err)
		}
	}
	launch := utc(2026, 2, 28, 23, 0, 0)
	in := models.Instance{CreatedAt: launch, PriceCentsPerHour: 129}
	if s := in.SpendSoFar(launch.Add(90*time.Minute + time.Second)); s.CostCents != 91*129/60 || s.Uptime != 90*time.Minute+time.Second {
		t.Errorf("running: %+v", s)
	}
	end := launch.Add(time.Hour)
	in.TerminatedAt = &end
	if s := in.SpendSoFar(launch.Add(48 * time.Hour)); s.CostCents != 129 || s.Uptime != time.Hour {
		t.Errorf("terminated: %+v", s)
	}
}

// The usage page's forecast comes from the report; it must be the month's
// forecast that the overview shows, and the total for a month that is over.
func TestUsageForecastIsTheMonthSpendsForecast(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(utc(2027, 12, 20, 13, 7, 41))
	insertYearOfInstances(t, f.store, f.alice.AccountID, utc(2027, 1, 1, 0, 0, 0), 2000, f.clock.Now())
	m, err := f.store.MonthSpend(ctx, f.alice, "")
	if err != nil {
		t.Fatal(err)
	}
	now := f.usage(t, f.alice, utc(2027, 12, 1, 0, 0, 0), utc(2028, 1, 1, 0, 0, 0))
	if now.TotalCents != m.ActualCents || now.ForecastCents != m.ForecastCents || m.ForecastCents <= m.ActualCents {
		t.Fatalf("report %d / %d, month spend %d / %d", now.TotalCents, now.ForecastCents, m.ActualCents, m.ForecastCents)
	}
	june := f.usage(t, f.alice, utc(2027, 6, 1, 0, 0, 0), utc(2027, 7, 1, 0, 0, 0))
	if june.ForecastCents != june.TotalCents {
		t.Fatalf("June is over: forecast %d, total %d", june.ForecastCents, june.TotalCents)
	}
}
