package views

import (
	"strconv"
	"strings"
	"time"
)

// NavUsage is the usage page's navigation item.
const NavUsage = "usage"

// Usage is the usage page: one calendar month (UTC) of the account.
type Usage struct {
	Month     time.Time // its first instant
	Current   bool      // the month now running: actual so far and forecast
	AsOf      time.Time
	Actual    int64 // cents so far (the current month) or the month's total
	Forecast  int64 // cents by the month's end, the current month only
	Months    []UsageMonth
	Days      []UsageDay
	Types     []UsageType
	Instances []UsageInstance // one page
	NextPage  string          // the next page's address, "" on the last
	Paged     bool            // this is not the first page
}

// UsageMonth is one month of the picker.
type UsageMonth struct {
	Value    string // 2006-01
	Label    string // January 2006
	Total    int64
	Selected bool
}

// UsageDay is one day's bar.
type UsageDay struct {
	Date  time.Time
	Cents int64
}

// UsageType is one instance type's share.
type UsageType struct {
	Name      string
	Instances int
	Minutes   int64
	Cents     int64
}

// UsageInstance is one instance's share of the month.
type UsageInstance struct {
	ID, Name, Type, Region string
	Launched               time.Time
	Terminated             *time.Time
	Minutes                int64
	PricePerHour           int64
	Cents                  int64
}

// MonthValue is a month as the picker and the export name it.
func MonthValue(m time.Time) string { return m.UTC().Format("2006-01") }

// Cents writes an amount of cents as dollars: $1,234.05.
func Cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	whole := strconv.FormatInt(c/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + "$" + b.String() + "." + strconv.FormatInt(c%100/10, 10) + strconv.FormatInt(c%10, 10)
}

// Minutes writes a duration in minutes as days, hours and minutes.
func Minutes(m int64) string {
	d, h := m/(24*60), m/60%24
	m %= 60
	switch {
	case d > 0:
		return strconv.FormatInt(d, 10) + " d " + strconv.FormatInt(h, 10) + " h " + strconv.FormatInt(m, 10) + " min"
	case h > 0:
		return strconv.FormatInt(h, 10) + " h " + strconv.FormatInt(m, 10) + " min"
	}
	return strconv.FormatInt(m, 10) + " min"
}

// UptimeText writes how long an instance has run, to the minute begun.
func UptimeText(d time.Duration) string {
	return Minutes(int64((d + time.Minute - 1) / time.Minute))
}

// usageBar is one day drawn.
type usageBar struct {
	X, W, Y, H string
	Title      string
	Label      string // the day of the month under some bars
	LabelX     string
}

// usageBars lays the days out like the delivery chart: heights to scale
// with the costliest day.
func (u Usage) usageBars() []usageBar {
	n := len(u.Days)
	if n == 0 {
		return nil
	}
	var peak int64
	for _, d := range u.Days {
		peak = max(peak, d.Cents)
	}
	slot := float64(chartWidth-chartLeft) / float64(n)
	span := float64(chartBottom - chartTop)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	out := make([]usageBar, n)
	for i, d := range u.Days {
		var h float64
		if peak > 0 {
			h = span * float64(d.Cents) / float64(peak)
		}
		x := chartLeft + slot*float64(i) + 2
		b := usageBar{X: f(x), W: f(slot - 4), Y: f(chartBottom - h), H: f(h),
			Title: d.Date.Format("2 Jan 2006") + " (UTC): " + Cents(d.Cents)}
		if i%5 == 0 {
			b.Label, b.LabelX = d.Date.Format("2"), f(x)
		}
		out[i] = b
	}
	return out
}

// chartSummary says the chart in one sentence.
func (u Usage) chartSummary() string {
	var peak UsageDay
	for _, d := range u.Days {
		if d.Cents > peak.Cents {
			peak = d
		}
	}
	if peak.Cents == 0 {
		return "Nothing was spent in " + u.Month.Format("January 2006") + "."
	}
	return Cents(u.Actual) + " spent in " + u.Month.Format("January 2006") + " (UTC); the costliest day was " +
		peak.Date.Format("2 January") + " with " + Cents(peak.Cents) + "."
}

// exportHref is the CSV export of the month's rows of one kind.
func (u Usage) exportHref(rows string) string {
	return "/usage/export?month=" + MonthValue(u.Month) + "&rows=" + rows
}
