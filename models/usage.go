package models

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"gorm.io/gorm"
)

// UsageQuery asks for an account's usage in [Start, End). Owners, members
// and viewers read their own account's (AccountID is ignored); support
// staff name the account.
type UsageQuery struct {
	AccountID  string
	Start, End time.Time
}

// MaxUsagePeriod is the longest period one usage query covers.
const MaxUsagePeriod = 400 * 24 * time.Hour

// Validate checks the period: both ends given, Start before End, at most
// MaxUsagePeriod apart.
func (q UsageQuery) Validate() error {
	f := &FieldErrors{}
	switch {
	case q.Start.IsZero():
		f.Add("start", "is required")
	case q.End.IsZero():
		f.Add("end", "is required")
	case !q.Start.Before(q.End):
		f.Add("end", "must be after start")
	case q.End.Sub(q.Start) > MaxUsagePeriod:
		f.Add("end", "must be at most 400 days after start")
	}
	return f.Err()
}

// InstanceUsage is one instance's share of a period.
type InstanceUsage struct {
	InstanceID        string
	Name              string
	InstanceTypeName  string
	RegionName        string
	PriceCentsPerHour int64
	LaunchedAt        time.Time
	TerminatedAt      *time.Time // nil while it has not been terminated
	Minutes           int64      // minutes begun within the period
	CostCents         int64
}

// UsageDay is the cost of one UTC day (the part of it inside the period).
type UsageDay struct {
	Date      time.Time // midnight UTC
	CostCents int64
}

// UsageByType sums a period's instances of one type.
type UsageByType struct {
	InstanceTypeName string
	Instances        int
	Minutes          int64
	CostCents        int64
}

// UsageReport is an account's usage in a period, counted up to AsOf (the
// time of reading): running instances have cost what they have run so
// far. TotalCents is the exact sum of Days, of Types and of Instances.
type UsageReport struct {
	AccountID  string
	Start, End time.Time
	AsOf       time.Time
	TotalCents int64
	// ForecastCents is what the period will have cost at its end if what
	// runs at AsOf keeps running (TotalCents for a period already over).
	ForecastCents int64
	Days          []UsageDay      // every UTC day meeting the period, in order
	Types         []UsageByType   // by cost, highest first, then by name
	Instances     []InstanceUsage // those with a minute in the period, by launch then id
}

// Usage reports the account's usage in the period. Codes:
// CodeInvalidParameters (the period), CodeForbidden (no account),
// CodeNotFound (support naming an unknown account).
func (s *Store) Usage(ctx context.Context, actor Actor, q UsageQuery) (*UsageReport, error) {
	accountID, err := s.usageAccount(ctx, actor, q.AccountID)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	r, err := s.usageAt(ctx, accountID, q.Start.UTC(), q.End.UTC(), s.Now())
	if err != nil {
		return nil, err
	}
	return r, s.withNames(ctx, accountID, r.Instances)
}

// withNames fills in the name and region of each row, which usageAt
// leaves out, in a few queries by id.
func (s *Store) withNames(ctx context.Context, accountID string, rows []InstanceUsage) error {
	const batch = 500
	for from := 0; from < len(rows); from += batch {
		part := rows[from:min(from+batch, len(rows))]
		ids := make([]string, len(part))
		at := make(map[string]int, len(part))
		for i, r := range part {
			ids[i], at[r.InstanceID] = r.InstanceID, i
		}
		found, err := s.read(ctx).Raw(`SELECT id, name, region_name FROM instances WHERE account_id = ? AND id IN ?`,
			accountID, ids).Rows()
		if err != nil {
			return err
		}
		for found.Next() {
			var id, name, region string
			if err := found.Scan(&id, &name, &region); err != nil {
				found.Close()
				return err
			}
			part[at[id]].Name, part[at[id]].RegionName = name, region
		}
		if err := errors.Join(found.Err(), found.Close()); err != nil {
			return err
		}
	}
	return nil
}

// usageAt is the account's usage in [start, end) as read at now: a page
// of the API's listing reads at the instant its first page was read, so
// every page counts the same costs.
func (s *Store) usageAt(ctx context.Context, accountID string, start, end, now time.Time) (*UsageReport, error) {
	spans, err := s.instanceSpans(ctx, accountID, start, end)
	if err != nil {
		return nil, err
	}
	r := &UsageReport{AccountID: accountID, Start: start, End: end, AsOf: now}
	for d := dayStart(start); d.Before(end); d = d.AddDate(0, 0, 1) {
		r.Days = append(r.Days, UsageDay{Date: d})
	}
	types := map[string]*UsageByType{}
	for _, sp := range spans {
		_, forecast := sp.costBetween(start, end, end)
		r.ForecastCents += forecast
		minutes, cents := sp.costBetween(start, end, now)
		if minutes == 0 {
			continue
		}
		sp.usage.Minutes, sp.usage.CostCents = minutes, cents
		r.Instances = append(r.Instances, sp.usage)
		r.TotalCents += cents
		t := types[sp.usage.InstanceTypeName]
		if t == nil {
			t = &UsageByType{InstanceTypeName: sp.usage.InstanceTypeName}
			types[t.InstanceTypeName] = t
		}
		t.Instances++
		t.Minutes += minutes
		t.CostCents += cents
		sp.addDays(r.Days, start, end, now)
	}
	for _, t := range types {
		r.Types = append(r.Types, *t)
	}
	slices.SortFunc(r.Types, func(a, b UsageByType) int {
		return cmp.Or(cmp.Compare(b.CostCents, a.CostCents), cmp.Compare(a.InstanceTypeName, b.InstanceTypeName))
	})
	return r, nil
}

// MonthSpend is an account's spend in the calendar month (UTC) of AsOf.
type MonthSpend struct {
	Month         time.Time // the month's first instant
	AsOf          time.Time
	ActualCents   int64 // accrued up to AsOf
	ForecastCents int64 // by the month's end, if what runs now keeps running
}

// MonthSpend is the account's spend this month so far and its forecast
// to the month's end at the current rate: every instance running now is
// counted as running until the month ends (or until its termination, when
// it is already terminating). Readers as for Usage.
func (s *Store) MonthSpend(ctx context.Context, actor Actor, accountID string) (*MonthSpend, error) {
	accountID, err := s.usageAccount(ctx, actor, accountID)
	if err != nil {
		return nil, err
	}
	return s.monthSpend(ctx, accountID, s.Now())
}

// monthSpend is MonthSpend without the reader's check, for the domain's
// own use (budgets, launch refusals).
func (s *Store) monthSpend(ctx context.Context, accountID string, now time.Time) (*MonthSpend, error) {
	return monthSpendIn(s.read(ctx), accountID, now)
}

// monthSpendIn is monthSpend read through db, which may be a transaction
// or a read.
func monthSpendIn(db *gorm.DB, accountID string, now time.Time) (*MonthSpend, error) {
	month := MonthStart(now)
	next := month.AddDate(0, 1, 0)
	spans, err := billingSpansIn(db, accountID, month, next)
	if err != nil {
		return nil, err
	}
	m := &MonthSpend{Month: month, AsOf: now}
	for _, sp := range spans {
		m.add(sp)
	}
	return m, nil
}

// add counts an instance's cost in the month: so far, and by its end.
func (m *MonthSpend) add(sp instanceSpan) {
	next := m.Month.AddDate(0, 1, 0)
	_, actual := sp.costBetween(m.Month, next, m.AsOf)
	_, forecast := sp.costBetween(m.Month, next, next)
	m.ActualCents += actual
	m.ForecastCents += forecast
}

// usageAccount is the account whose usage the actor reads.
func (s *Store) usageAccount(ctx context.Context, actor Actor, requested string) (string, error) {
	accountID, err := actor.scope(requested)
	if err != nil {
		return "", err
	}
	if accountID == "" {
		return "", Errorf(CodeInvalidParameters, "Name the account whose usage to read")
	}
	if actor.isStaff() {
		if !IsID(accountID) {
			return "", NotFound("account", accountID)
		}
		if _, err := s.Account(ctx, accountID); err != nil {
			return "", err
		}
	}
	return accountID, nil
}

// usageSpan is an instance as usage reads it.
type usageSpan struct {
	instanceSpan
	usage InstanceUsage
}

// instanceSpans reads the account's instances whose life meets [start,
// end), in launch order. It scans rows by hand: an account can hold tens
// of thousands of instances over a year.
func (s *Store) instanceSpans(ctx context.Context, accountID string, start, end time.Time) ([]usageSpan, error) {
	// Names and regions are read later, for the rows shown (withNames):
	// every column is a few cgo calls a row, the most of a year's cost.
	rows, err := s.read(ctx).Raw(`SELECT id, instance_type_name, price_cents_per_hour,
		created_at, terminated_at FROM instances
		WHERE account_id = ? AND created_at < ? AND (terminated_at IS NULL OR terminated_at > ?)
		ORDER BY created_at, id`, accountID, end, start).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []usageSpan
	for rows.Next() {
		var u InstanceUsage
		sp, err := scanSpan(rows, &u.InstanceID, &u.InstanceTypeName)
		if err != nil {
			return nil, err
		}
		u.PriceCentsPerHour, u.LaunchedAt, u.TerminatedAt = sp.price, sp.launch, sp.terminatedAt
		out = append(out, usageSpan{instanceSpan: sp, usage: u})
	}
	return out, rows.Err()
}

// scanSpan scans a row whose last three columns are price_cents_per_hour,
// created_at and terminated_at, after the columns lead points to.
func scanSpan(rows *sql.Rows, lead ...any) (instanceSpan, error) {
	var sp instanceSpan
	var terminated sql.NullTime
	if err := rows.Scan(append(lead, &sp.price, &sp.launch, &terminated)...); err != nil {
		return sp, err
	}
	sp.launch = sp.launch.UTC()
	if terminated.Valid {
		t := terminated.Time.UTC()
		sp.terminatedAt = &t
	}
	return sp, nil
}

// billingSpansIn is instanceSpans with only what a cost needs: a month's
// or a year's total reads no names.
func billingSpansIn(db *gorm.DB, accountID string, start, end time.Time) ([]instanceSpan, error) {
	rows, err := db.Raw(`SELECT price_cents_per_hour, created_at, terminated_at FROM instances
		WHERE account_id = ? AND created_at < ? AND (terminated_at IS NULL OR terminated_at > ?)`,
		accountID, end, start).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []instanceSpan
	for rows.Next() {
		sp, err := scanSpan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// addDays adds the span's cost to each UTC day of days (which start at
// dayStart(start)) that it ran in. A day's cost is the difference of the
// accrued cost at its two ends, each end read once and shared by the two
// days it separates, so the days add up to the span's cost.
func (sp usageSpan) addDays(days []UsageDay, start, end, now time.Time) {
	from := start
	if from.Before(sp.launch) {
		from = sp.launch
	}
	stop := sp.effectiveEnd(now)
	// accrued is the cost up to t, nothing counted after stop.
	accrued := func(t time.Time) int64 {
		if t.After(stop) {
			t = stop
		}
		return accruedCents(sp.price, minutesStarted(sp.launch, t))
	}
	first := int(dayStart(from).Sub(dayStart(start)) / (24 * time.Hour))
	if first >= len(days) {
		return
	}
	lo := days[first].Date
	if lo.Before(start) {
		lo = start
	}
	prev := accrued(lo)
	for i := first; i < len(days) && days[i].Date.Before(stop); i++ {
		hi := days[i].Date.Add(24 * time.Hour) // UTC: every day is 24 hours
		if hi.After(end) {
			hi = end
		}
		cur := accrued(hi)
		days[i].CostCents += cur - prev
		prev = cur
	}
}

// effectiveEnd is when the span stops accruing as read at now.
func (sp usageSpan) effectiveEnd(now time.Time) time.Time {
	if sp.terminatedAt != nil && sp.terminatedAt.Before(now) {
		return *sp.terminatedAt
	}
	return now
}
