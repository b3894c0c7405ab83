package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// limits are optional thresholds that fail a run that is otherwise
// correct but too slow; zero or negative means off.
type limits struct {
	maxP99       time.Duration // per operation
	maxConflicts int           // 409 answers in the whole run; -1 is off
	minLastFirst float64       // the last window's good answers over the first's
}

// failureGroup is one kind of failure: how often, and one example.
type failureGroup struct {
	op      string
	outcome outcome
	status  int
	code    string
	count   int
	example string
}

func (g failureGroup) String() string {
	what := map[outcome]string{outcomeUnexpected: "unexpected answer", outcomeServer: "server error",
		outcomeTimeout: "no answer within the timeout", outcomeNoAnswer: "no answer",
		outcomeBadBody: "malformed answer"}[g.outcome]
	s := fmt.Sprintf("%-20s %6d× %s", g.op, g.count, what)
	if g.status != 0 {
		s += fmt.Sprintf(" %d", g.status)
	}
	if g.code != "" {
		s += " " + g.code
	}
	if g.example != "" {
		s += ": " + g.example
	}
	return s
}

// failures groups the failed requests, most frequent first.
func failures(results []result) []failureGroup {
	type key struct {
		op      string
		outcome outcome
		status  int
		code    string
	}
	groups := map[key]*failureGroup{}
	for _, r := range results {
		if !r.outcome.failed() {
			continue
		}
		k := key{r.op, r.outcome, r.status, r.code}
		g := groups[k]
		if g == nil {
			g = &failureGroup{op: r.op, outcome: r.outcome, status: r.status, code: r.code, example: r.detail}
			groups[k] = g
		}
		g.count++
	}
	out := make([]failureGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b failureGroup) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.op, b.op), cmp.Compare(a.outcome, b.outcome),
			cmp.Compare(a.status, b.status), cmp.Compare(a.code, b.code))
	})
	return out
}

// verdict lists why the run failed; an empty list is a pass. rows are
// summarize's, whose last row is the whole run; afterwards are the
// problems the checks after the load found.
func verdict(rows []opStats, afterwards []string, lim limits) []string {
	var why []string
	if len(rows) == 0 {
		return append(why, "no request was made")
	}
	all := rows[len(rows)-1]
	if all.failed > 0 {
		why = append(why, fmt.Sprintf("%d of %d requests failed (5xx, no answer within the timeout, "+
			"malformed or unexpected answers)", all.failed, all.requests))
	}
	if lim.maxP99 > 0 {
		for _, s := range rows[:len(rows)-1] {
			if s.p99 > lim.maxP99 {
				why = append(why, fmt.Sprintf("%s: p99 %s above -max-p99 %s", s.op, round(s.p99), lim.maxP99))
			}
		}
	}
	if lim.maxConflicts >= 0 && all.conflicts > lim.maxConflicts {
		why = append(why, fmt.Sprintf("%d answers were 409 conflicts, above -max-conflicts %d", all.conflicts, lim.maxConflicts))
	}
	return append(why, afterwards...)
}
