package models

import (
	"context"
	"time"
)

// MaxUsageMonths is how many months back the month list reaches.
const MaxUsageMonths = 36

// UsageMonth is one calendar month's (UTC) spend, up to now for the
// current month.
type UsageMonth struct {
	Month      time.Time // its first instant
	TotalCents int64
}

// UsageMonths lists the account's months, newest first, from the month
// of its first instance (at most MaxUsageMonths back) to the current one,
// each with its total. Readers as for Usage.
func (s *Store) UsageMonths(ctx context.Context, actor Actor, accountID string) ([]UsageMonth, error) {
	accountID, err := s.usageAccount(ctx, actor, accountID)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	current := MonthStart(now)
	var first []time.Time
	if err := s.read(ctx).Raw(`SELECT created_at FROM instances WHERE account_id = ? ORDER BY created_at LIMIT 1`,
		accountID).Scan(&first).Error; err != nil {
		return nil, err
	}
	from := current
	if len(first) == 1 {
		from = MonthStart(first[0])
		if oldest := current.AddDate(0, 1-MaxUsageMonths, 0); from.Before(oldest) {
			from = oldest
		}
	}
	next := current.AddDate(0, 1, 0)
	spans, err := billingSpansIn(s.read(ctx), accountID, from, next)
	if err != nil {
		return nil, err
	}
	var out []UsageMonth
	for m := current; !m.Before(from); m = m.AddDate(0, -1, 0) {
		month := UsageMonth{Month: m}
		end := m.AddDate(0, 1, 0)
		for _, sp := range spans {
			_, cents := sp.costBetween(m, end, now)
			month.TotalCents += cents
		}
		out = append(out, month)
	}
	return out, nil
}

// MonthSpends is MonthSpend for many accounts at once, in one query over
// their instances (the support pages list accounts by the page). Support
// staff only, else CodeForbidden. Accounts without instances get zeros.
func (s *Store) MonthSpends(ctx context.Context, actor Actor, accountIDs []string) (map[string]MonthSpend, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff read other accounts' spend")
	}
	now := s.Now()
	month := MonthStart(now)
	next := month.AddDate(0, 1, 0)
	out := make(map[string]MonthSpend, len(accountIDs))
	for _, id := range accountIDs {
		out[id] = MonthSpend{Month: month, AsOf: now}
	}
	if len(accountIDs) == 0 {
		return out, nil
	}
	rows, err := s.read(ctx).Raw(`SELECT account_id, price_cents_per_hour, created_at, terminated_at FROM instances
		WHERE account_id IN ? AND created_at < ? AND (terminated_at IS NULL OR terminated_at > ?)`,
		accountIDs, next, month).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		sp, err := scanSpan(rows, &id)
		if err != nil {
			return nil, err
		}
		m := out[id]
		m.add(sp)
		out[id] = m
	}
	return out, rows.Err()
}
