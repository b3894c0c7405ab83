package models

import "time"

// How an instance's cost is counted. An instance accrues from its launch
// (CreatedAt) until it is terminated (TerminatedAt), per started minute,
// at the price it was launched at. After m started minutes it has cost
//
//	floor(m × price_cents_per_hour / 60) cents
//
// so a whole hour costs exactly the hourly price, and the cost of any span
// of its life is the difference of that sum at the span's two ends. Spans
// that follow each other (days, months, pages) therefore add up exactly to
// the span they cover, with whole cents everywhere and no rounding left
// over to distribute.

// minutesStarted is how many minutes of an instance launched at launch
// have begun before t (a minute counts from its first instant).
func minutesStarted(launch, t time.Time) int64 {
	d := t.Sub(launch)
	if d <= 0 {
		return 0
	}
	return int64((d + time.Minute - 1) / time.Minute)
}

// accruedCents is the cost of an instance's first minutes minutes.
func accruedCents(pricePerHour, minutes int64) int64 {
	return minutes * pricePerHour / 60
}

// launchPrice is what an instance of the type costs per hour when it is
// launched now; it keeps that price for its life.
func launchPrice(typeName string) int64 {
	t, _ := LookupInstanceType(typeName)
	return int64(t.PriceCentsPerHour)
}

// instanceSpan is an instance's billing facts: what Usage reads of it.
type instanceSpan struct {
	launch       time.Time
	terminatedAt *time.Time
	price        int64
}

// costBetween is the instance's minutes begun and cost accrued in [from,
// to), not counting anything after stop (the time of reading, or for a
// forecast the end of the month). A span before launch or after
// termination costs nothing.
func (i instanceSpan) costBetween(from, to, stop time.Time) (minutes, cents int64) {
	if i.terminatedAt != nil && i.terminatedAt.Before(stop) {
		stop = *i.terminatedAt
	}
	if to.After(stop) {
		to = stop
	}
	if from.Before(i.launch) {
		from = i.launch
	}
	if !to.After(from) {
		return 0, 0
	}
	m0, m1 := minutesStarted(i.launch, from), minutesStarted(i.launch, to)
	return m1 - m0, accruedCents(i.price, m1) - accruedCents(i.price, m0)
}

// MonthStart is the first instant of t's calendar month in UTC, the zone
// every usage figure is counted in.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// dayStart is the first instant of t's day in UTC.
func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
