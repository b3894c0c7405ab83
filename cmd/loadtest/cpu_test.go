package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestProcessTicksCountsFieldsAfterTheCommandName(t *testing.T) {
	// A command name with spaces and a parenthesis, as /proc prints it;
	// utime 1234 and stime 56 are fields 14 and 15.
	stat := "4242 (cloud plane) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 0 0 20 0 9 0 100 0 0\n"
	user, kernel, ok := processTicks(stat)
	if !ok || user != 1234 || kernel != 56 {
		t.Errorf("processTicks = %d, %d, %v; want 1234, 56, true", user, kernel, ok)
	}
	if _, _, ok := processTicks("4242 (short) S 1 2"); ok {
		t.Error("a truncated line was read")
	}
}

func TestBusyTicksLeavesOutIdleAndIOWait(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	stat := "cpu  100 2 30 5000 70 4 5 6 0 0\ncpu0 50 1 15 2500 35 2 2 3 0 0\n"
	if busy, ok := busyTicks(stat); !ok || busy != 100+2+30+4+5+6 {
		t.Errorf("busyTicks = %d, %v; want 147, true", busy, ok)
	}
	if _, ok := busyTicks("intr 1 2 3\n"); ok {
		t.Error("a line that is not the CPU total was read")
	}
}

func TestReadCPUSeesThisProcessWork(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here: the report prints no CPU split")
	}
	before, ok := readCPU(os.Getpid())
	if !ok {
		t.Fatal("readCPU failed where /proc exists")
	}
	// Work until the kernel has charged this process a few ticks.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		after, _ := readCPU(os.Getpid())
		if d := after.sub(before); d.generator >= 20 {
			// The process is read twice, a moment apart, and its other
			// threads run meanwhile: allow a tick or two between the reads.
			if server := d.serverUser + d.serverKernel; server < d.generator-2 || server > d.generator+2 ||
				d.machine < d.generator-2 {
				t.Fatalf("the same process as server and generator read %+v", d)
			}
			return
		}
	}
	t.Fatal("no CPU time was charged in 5 s of work")
}

func TestPrintCostsDividesEachWindowsCPUByItsAnswers(t *testing.T) {
	w := newWindowed(time.Now(), time.Second, 3*time.Second)
	w.counts[0].Store(100)
	w.bytes[0].Store(400_000)
	w.counts[1].Store(50)
	w.bytes[1].Store(500_000)
	// Window 1: 1 s of server user time, 0.5 s kernel, 0.25 s generator,
	// 0.25 s other processes; window 2 like it; window 3 has no answers.
	w.cpu[0].Store(&cpuTimes{})
	w.cpu[1].Store(&cpuTimes{100, 50, 25, 200})
	w.cpu[2].Store(&cpuTimes{200, 100, 50, 400})
	var out bytes.Buffer
	w.printCosts(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("printed %q", out.String())
	}
	for i, want := range [][]string{
		{"1", "100", "4000", "10000", "5000", "2500", "2500"},
		{"2", "50", "10000", "20000", "10000", "5000", "5000"},
		{"3", "0"},
	} {
		if got := strings.Fields(lines[i+2]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("window %d: %v, want %v", i+1, got, want)
		}
	}
}

func TestPrintCostsWithoutCPUSamplesPrintsBytesOnly(t *testing.T) {
	w := newWindowed(time.Now(), time.Second, 2*time.Second) // as where /proc is missing
	w.counts[0].Store(4)
	w.bytes[0].Store(400)
	var out bytes.Buffer
	w.printCosts(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || strings.Contains(out.String(), "CPU") || strings.Join(strings.Fields(lines[2]), " ") != "1 4 100" {
		t.Errorf("printed %q", out.String())
	}
}

// A host that slows down halves the answers but not the steady-host
// estimate; a server whose answers cost more lowers it.
func TestSteadyLastFirst(t *testing.T) {
	for _, tc := range []struct {
		name       string
		last       cpuTimes // the second window's ticks
		lastCount  int64
		want       float64
		wantOutput bool
	}{
		// Everyone's CPU per answer doubled: the host, not the server.
		{"host slowed", cpuTimes{200, 100, 50, 400}, 50, 1.00, true},
		// The server's CPU per answer grew, the generator's did not: the
		// machine's 300 ticks over the generator's 25, against 200 over 25.
		{"server costlier", cpuTimes{200, 50, 25, 300}, 100, 0.67, true},
		{"no answers in the last window", cpuTimes{100, 50, 25, 200}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWindowed(time.Now(), time.Second, 2*time.Second)
			w.counts[0].Store(100)
			w.counts[1].Store(tc.lastCount)
			first := cpuTimes{100, 50, 25, 200}
			w.cpu[0].Store(&cpuTimes{})
			w.cpu[1].Store(&first)
			end := cpuTimes{first.serverUser + tc.last.serverUser, first.serverKernel + tc.last.serverKernel,
				first.generator + tc.last.generator, first.machine + tc.last.machine}
			w.cpu[2].Store(&end)
			got, ok := w.steadyLastFirst()
			if ok != tc.wantOutput || math.Abs(got-tc.want) > 0.005 {
				t.Fatalf("steadyLastFirst = %.3f, %v; want %.2f, %v", got, ok, tc.want, tc.wantOutput)
			}
			var out bytes.Buffer
			w.printCosts(&out)
			if printed := strings.Contains(out.String(), "steady speed"); printed != tc.wantOutput {
				t.Fatalf("printed %q", out.String())
			}
			if tc.wantOutput && !strings.Contains(out.String(), fmt.Sprintf("%.2f\n", tc.want)) {
				t.Fatalf("printed %q, want %.2f", out.String(), tc.want)
			}
		})
	}
}

// With a single window there is nothing to compare: no estimate.
func TestSteadyLastFirstNeedsTwoWindows(t *testing.T) {
	w := newWindowed(time.Now(), time.Second, time.Second)
	w.counts[0].Store(100)
	w.cpu[0].Store(&cpuTimes{})
	w.cpu[1].Store(&cpuTimes{100, 50, 25, 200})
	if r, ok := w.steadyLastFirst(); ok {
		t.Fatalf("steadyLastFirst = %.2f from one window", r)
	}
}
