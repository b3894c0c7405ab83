package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// result is one request as the run saw it.
type result struct {
	op      string
	status  int    // 0 when there was no answer
	code    string // the error envelope's code
	outcome outcome
	latency time.Duration
	done    time.Time // when the answer (or the timeout) came
	detail  string    // why it failed, for the report
	bytes   int       // the answer's body
}

// opStats sums up one operation's requests.
type opStats struct {
	op        string
	requests  int
	byStatus  map[string]int // "200", "400", "timeout", "no answer"
	failed    int
	conflicts int
	p50, p99  time.Duration
	max       time.Duration
}

// summarize groups results by operation, in name order, with a last row
// "all" for every request. Requests that timed out count at the time they
// waited, so a server that stalls shows in the percentiles too.
func summarize(results []result) []opStats {
	byOp := map[string][]result{}
	for _, r := range results {
		byOp[r.op] = append(byOp[r.op], r)
	}
	var out []opStats
	for _, op := range slices.Sorted(maps.Keys(byOp)) {
		out = append(out, stats(op, byOp[op]))
	}
	if len(results) > 0 {
		out = append(out, stats("all", results))
	}
	return out
}

func stats(op string, rs []result) opStats {
	s := opStats{op: op, requests: len(rs), byStatus: map[string]int{}}
	lat := make([]time.Duration, len(rs))
	for i, r := range rs {
		lat[i] = r.latency
		s.byStatus[statusLabel(r)]++
		if r.outcome.failed() {
			s.failed++
		}
		if r.outcome == outcomeConflict {
			s.conflicts++
		}
	}
	slices.Sort(lat)
	s.p50, s.p99 = percentile(lat, 0.50), percentile(lat, 0.99)
	if len(lat) > 0 {
		s.max = lat[len(lat)-1]
	}
	return s
}

func statusLabel(r result) string {
	switch r.outcome {
	case outcomeTimeout:
		return "timeout"
	case outcomeNoAnswer:
		return "no answer"
	}
	return strconv.Itoa(r.status)
}

// percentile is the nearest-rank percentile of sorted: the smallest value
// that at least p of the values do not exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// printTable writes one aligned row per operation.
func printTable(w io.Writer, rows []opStats) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "operation\trequests\tfailed\tp50\tp99\tmax\tby status")
	for _, s := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", s.op, s.requests, s.failed,
			round(s.p50), round(s.p99), round(s.max), statusCounts(s.byStatus))
	}
	_ = tw.Flush()
}

// statusCounts lists "200:812 400:31 timeout:2", statuses in order and
// the words after them.
func statusCounts(m map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		ai, aerr := strconv.Atoi(a)
		bi, berr := strconv.Atoi(b)
		if aerr == nil && berr == nil {
			return cmp.Compare(ai, bi)
		}
		if (aerr == nil) != (berr == nil) {
			return cmp.Compare(boolInt(aerr != nil), boolInt(berr != nil))
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// round keeps three significant figures or so: 1.23ms, 12.3ms, 1.2s.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// timeline counts the requests that were answered well (not failed, nor
// excused by an outage) in each step from start, so a server that stops
// answering shows when, and one that recovers from an outage how soon.
func timeline(results []result, start time.Time, step time.Duration, steps int) []int {
	out := make([]int, steps)
	for _, r := range results {
		i := int(r.done.Sub(start) / step)
		if r.outcome.failed() || r.outcome == outcomeUnavailable || i < 0 {
			continue
		}
		out[min(i, steps-1)]++
	}
	return out
}
