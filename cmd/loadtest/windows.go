package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// defaultWindow is the width of the windows in which good answers are
// counted: ten of them in the one-minute run the figures come from.
const defaultWindow = 6 * time.Second

// windowed counts the answers that were answered well in fixed windows
// from the start of the load, while the load runs, so that a long soak
// can print each window as it closes instead of only at the end.
type windowed struct {
	start  time.Time
	step   time.Duration
	counts []atomic.Int64 // the load's whole windows; answers after them are not counted
	bytes  []atomic.Int64 // the good answers' body bytes, by window
	// cpu holds the CPU times at each window's start and at the last
	// one's end (sampleCPU); nil where none was read.
	cpu []atomic.Pointer[cpuTimes]
}

func newWindowed(start time.Time, step, duration time.Duration) *windowed {
	n := max(int(duration/step), 1)
	return &windowed{start: start, step: step, counts: make([]atomic.Int64, n), bytes: make([]atomic.Int64, n),
		cpu: make([]atomic.Pointer[cpuTimes], n+1)}
}

// add counts r when it was answered well within one of the windows.
func (w *windowed) add(r result) {
	if w == nil || r.outcome.failed() || r.outcome == outcomeUnavailable {
		return
	}
	since := r.done.Sub(w.start)
	if i := int(since / w.step); since >= 0 && i < len(w.counts) {
		w.counts[i].Add(1)
		w.bytes[i].Add(int64(r.bytes))
	}
}

// follow prints each window's count as it closes, until ctx ends or the
// last window has been printed: a soak's progress, one line a window.
func (w *windowed) follow(ctx context.Context, out io.Writer) {
	for i := range w.counts {
		// A request that ends just after its window closes is still
		// counted in it: wait a little past the end before printing.
		closes := w.start.Add(time.Duration(i+1)*w.step + time.Second)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(closes)):
		}
		fmt.Fprintf(out, "window %d (%s–%s): %d answered well\n", i+1,
			time.Duration(i)*w.step, time.Duration(i+1)*w.step, w.counts[i].Load())
	}
}

// lastFirst is the last whole window's count over the first's: a server
// whose throughput does not decay as its data grows stays near 1.
func lastFirst(counts []int) float64 {
	if len(counts) == 0 || counts[0] == 0 {
		return 0
	}
	return float64(counts[len(counts)-1]) / float64(counts[0])
}

// snapshot is the count of each window so far.
func (w *windowed) snapshot() []int {
	out := make([]int, len(w.counts))
	for i := range w.counts {
		out[i] = int(w.counts[i].Load())
	}
	return out
}
