package views

import (
	"strconv"
	"time"
)

// WebhookChart is an endpoint's delivery attempts over the last day, one
// bar per hour, successes below failures.
type WebhookChart struct {
	Hours     []ChartHour // oldest first
	Succeeded int64
	Failed    int64
}

// ChartHour is one hour's bar.
type ChartHour struct {
	Start     time.Time // UTC
	Succeeded int64
	Failed    int64
}

// The chart's drawing, in its viewBox's units.
const (
	chartWidth  = 720
	chartHeight = 150
	chartTop    = 10 // room above the tallest bar
	chartBottom = 130
	chartLeft   = 0
)

// chartBar is one hour drawn: a success rectangle and a failure one on top.
type chartBar struct {
	X, W         string
	OkY, OkH     string
	FailY, FailH string
	Title        string
	Label        string // the hour under every sixth bar, else ""
	LabelX       string
}

func (c WebhookChart) peak() int64 {
	var m int64
	for _, h := range c.Hours {
		m = max(m, h.Succeeded+h.Failed)
	}
	return m
}

// bars lays the hours out; heights are to scale with the busiest hour.
func (c WebhookChart) bars() []chartBar {
	n := len(c.Hours)
	if n == 0 {
		return nil
	}
	peak := c.peak()
	slot := float64(chartWidth-chartLeft) / float64(n)
	span := float64(chartBottom - chartTop)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	out := make([]chartBar, n)
	for i, h := range c.Hours {
		var okH, failH float64
		if peak > 0 {
			okH = span * float64(h.Succeeded) / float64(peak)
			failH = span * float64(h.Failed) / float64(peak)
		}
		x := chartLeft + slot*float64(i) + 2
		b := chartBar{X: f(x), W: f(slot - 4), OkY: f(chartBottom - okH), OkH: f(okH),
			FailY: f(chartBottom - okH - failH), FailH: f(failH),
			Title: h.Start.Format("15:04") + " UTC: " + Count(int(h.Succeeded), "success", "successes") + ", " + Count(int(h.Failed), "failure", "failures")}
		if i%6 == 0 {
			b.Label, b.LabelX = h.Start.Format("15:04"), f(x)
		}
		out[i] = b
	}
	return out
}

// Busy are the hours with any attempt, for the table beside the chart.
func (c WebhookChart) Busy() []ChartHour {
	var out []ChartHour
	for _, h := range c.Hours {
		if h.Succeeded+h.Failed > 0 {
			out = append(out, h)
		}
	}
	return out
}

// Summary says the chart in one sentence, for its description.
func (c WebhookChart) Summary() string {
	if c.Succeeded+c.Failed == 0 {
		return "No delivery attempts in the last 24 hours."
	}
	return Count(int(c.Succeeded), "attempt", "attempts") + " succeeded and " + Count(int(c.Failed), "failed", "failed") +
		" in the last 24 hours; the busiest hour had " + Count(int(c.peak()), "attempt", "attempts") + "."
}
