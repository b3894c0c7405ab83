package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWindowsCountWholeWindowsOnly(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newWindowed(start, 6*time.Second, 20*time.Second) // three whole windows
	at := func(d time.Duration, o outcome) result { return result{outcome: o, done: start.Add(d), bytes: 10} }
	for _, r := range []result{
		at(time.Second, outcomeOK), at(2*time.Second, outcomeExpected), at(3*time.Second, outcomeServer),
		at(7*time.Second, outcomeOK), at(8*time.Second, outcomeUnavailable),
		at(13*time.Second, outcomeOK),
		at(19*time.Second, outcomeOK), // the tail after the last whole window
		at(-time.Second, outcomeOK),
	} {
		w.add(r)
	}
	if got, want := w.snapshot(), []int{2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("windows = %v, want %v", got, want)
	}
	// Bytes are counted with the answers they came in.
	if got := []int64{w.bytes[0].Load(), w.bytes[1].Load(), w.bytes[2].Load()}; !slices.Equal(got, []int64{20, 10, 10}) {
		t.Errorf("bytes by window = %v, want [20 10 10]", got)
	}
}

func TestLastFirst(t *testing.T) {
	for _, tc := range []struct {
		counts []int
		want   float64
	}{
		{[]int{15218, 12000, 7865}, 7865.0 / 15218}, // the decay
		{[]int{100, 100}, 1},
		{[]int{0, 5}, 0},
		{nil, 0},
	} {
		if got := lastFirst(tc.counts); got != tc.want {
			t.Errorf("lastFirst(%v) = %v, want %v", tc.counts, got, tc.want)
		}
	}
}

func TestFollowPrintsEachWindowAsItCloses(t *testing.T) {
	// Windows that closed long ago print at once.
	w := newWindowed(time.Now().Add(-time.Hour), time.Millisecond, 3*time.Millisecond)
	w.counts[1].Add(7)
	var out bytes.Buffer
	w.follow(context.Background(), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "window 2") || !strings.HasSuffix(lines[1], ": 7 answered well") {
		t.Errorf("follow printed %q", out.String())
	}
}

func TestOptionsRejectAWindowLongerThanTheRun(t *testing.T) {
	o := options{clients: 1, perAccount: 1, duration: 5 * time.Second, timeout: time.Second, window: 6 * time.Second}
	if msg := o.invalid(); !strings.Contains(msg, "-window") {
		t.Errorf("invalid() = %q, want a complaint about -window", msg)
	}
}
