package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 0.99, 0},
		{"one value", []time.Duration{ms(7)}, 0.5, ms(7)},
		{"p50 of 100", hundred, 0.50, ms(50)},
		{"p99 of 100", hundred, 0.99, ms(99)},
		{"p100 of 100", hundred, 1, ms(100)},
		{"p99 of 10 is the max", hundred[:10], 0.99, ms(10)},
		{"p50 of 4 is the second", hundred[:4], 0.50, ms(2)},
		{"p0 is the min", hundred, 0, ms(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%v) = %s, want %s", tc.p, got, tc.want)
			}
		})
	}
}

// canned is a run of three operations with every kind of answer.
func canned() []result {
	var rs []result
	for i := 1; i <= 98; i++ {
		rs = append(rs, result{op: "list filesystems", status: 200, outcome: outcomeOK, latency: ms(i)})
	}
	rs = append(rs,
		result{op: "list filesystems", status: 0, outcome: outcomeTimeout, latency: 10 * time.Second, detail: "no answer within 10s"},
		result{op: "list filesystems", status: 503, code: "provider/internal-unavailable", outcome: outcomeServer, latency: ms(300)},
		result{op: "create filesystem", status: 200, outcome: outcomeOK, latency: ms(20)},
		result{op: "create filesystem", status: 400, code: "global/quota-exceeded", outcome: outcomeExpected, latency: ms(10)},
		result{op: "create filesystem", status: 409, code: "global/internal-error", outcome: outcomeConflict, latency: ms(5000)},
		result{op: "create filesystem", status: 409, code: "global/internal-error", outcome: outcomeConflict, latency: ms(5000)},
		result{op: "list regions", status: 200, outcome: outcomeOK, latency: ms(1)},
	)
	return rs
}

func TestSummarize(t *testing.T) {
	rows := summarize(canned())
	var names []string
	for _, r := range rows {
		names = append(names, r.op)
	}
	if got := strings.Join(names, ","); got != "create filesystem,list filesystems,list regions,all" {
		t.Fatalf("rows = %s", got)
	}
	create, list, all := rows[0], rows[1], rows[3]
	if create.requests != 4 || create.failed != 0 || create.conflicts != 2 {
		t.Errorf("create: %+v", create)
	}
	if got := statusCounts(create.byStatus); got != "200:1 400:1 409:2" {
		t.Errorf("create statuses = %q", got)
	}
	if list.requests != 100 || list.failed != 2 || list.p50 != ms(50) || list.p99 != ms(300) || list.max != 10*time.Second {
		t.Errorf("list: %+v", list)
	}
	if got := statusCounts(list.byStatus); got != "200:98 503:1 timeout:1" {
		t.Errorf("list statuses = %q", got)
	}
	if all.requests != 105 || all.failed != 2 || all.conflicts != 2 || all.max != 10*time.Second {
		t.Errorf("all: %+v", all)
	}
}

func TestPrintTableAligns(t *testing.T) {
	var b strings.Builder
	printTable(&b, summarize(canned()))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a header and 4 rows:\n%s", b.String())
	}
	col := strings.Index(lines[0], "requests")
	for _, l := range lines[1:] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("column requests does not start at %d in %q", col, l)
		}
	}
}

func TestVerdict(t *testing.T) {
	clean := []result{
		{op: "list", status: 200, outcome: outcomeOK, latency: ms(5)},
		{op: "create", status: 400, code: "global/quota-exceeded", outcome: outcomeExpected, latency: ms(300)},
		{op: "create", status: 409, code: "global/internal-error", outcome: outcomeConflict, latency: ms(8)},
	}
	for _, tc := range []struct {
		name       string
		results    []result
		afterwards []string
		limits     limits
		want       []string // substrings, one per reason; none is a pass
	}{
		{"clean run passes", clean, nil, limits{maxConflicts: -1}, nil},
		{"nothing measured", nil, nil, limits{maxConflicts: -1}, []string{"no request"}},
		{"failed requests", canned(), nil, limits{maxConflicts: -1}, []string{"2 of 105 requests failed"}},
		{"server unwell afterwards", clean, []string{"after the load, GET /healthz answered 503, not 200"},
			limits{maxConflicts: -1}, []string{"GET /healthz answered 503"}},
		{"p99 above the limit", clean, nil, limits{maxP99: ms(250), maxConflicts: -1},
			[]string{"create: p99 300ms above -max-p99 250ms"}},
		{"p99 within the limit", clean, nil, limits{maxP99: ms(300), maxConflicts: -1}, nil},
		{"conflicts above the limit", clean, nil, limits{maxConflicts: 0}, []string{"1 answers were 409"}},
		{"conflicts within the limit", clean, nil, limits{maxConflicts: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := verdict(summarize(tc.results), tc.afterwards, tc.limits)
			if len(why) != len(tc.want) {
				t.Fatalf("verdict = %q, want %d reasons", why, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(why[i], w) {
					t.Errorf("reason %d = %q, want it to contain %q", i, why[i], w)
				}
			}
		})
	}
}

func TestFailuresGroupsByKind(t *testing.T) {
	rs := canned()
	rs = append(rs, result{op: "list filesystems", status: 0, outcome: outcomeTimeout, latency: 10 * time.Second,
		detail: "a second timeout"})
	groups := failures(rs)
	if len(groups) != 2 {
		t.Fatalf("groups = %v", groups)
	}
	if g := groups[0]; g.outcome != outcomeTimeout || g.count != 2 || g.example != "no answer within 10s" {
		t.Errorf("first group = %+v, want the two timeouts with the first example", g)
	}
	if s := groups[1].String(); !strings.Contains(s, "server error 503 provider/internal-unavailable") {
		t.Errorf("second group reads %q", s)
	}
}

func TestTimeline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration, o outcome) result { return result{outcome: o, done: start.Add(d)} }
	rs := []result{
		at(ms(100), outcomeOK), at(ms(900), outcomeExpected), at(ms(1500), outcomeConflict),
		at(ms(1600), outcomeTimeout), at(ms(2500), outcomeServer),
		at(ms(9000), outcomeOK), // after the last step: counted in it
	}
	got := timeline(rs, start, time.Second, 3)
	if want := []int{2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("timeline = %v, want %v", got, want)
	}
}
