package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The load generator shares the machine with the server (and, on
// PostgreSQL, with the database), so a window's good answers fall when any
// of them spends more per answer. The report splits each window's CPU
// time between them, read from Linux's /proc, to say whose cost grew; on
// other systems it prints no split.

// ticksPerSecond is Linux's USER_HZ, the unit of /proc's CPU times: 100
// on every architecture Go runs on.
const ticksPerSecond = 100

// cpuTimes is CPU time used so far, in ticks: by the server in user space
// and in the kernel, by this process (the load generator), and by the
// whole machine, everyone included.
type cpuTimes struct {
	serverUser, serverKernel, generator, machine int64
}

func (a cpuTimes) sub(b cpuTimes) cpuTimes {
	return cpuTimes{a.serverUser - b.serverUser, a.serverKernel - b.serverKernel,
		a.generator - b.generator, a.machine - b.machine}
}

// readCPU reads the CPU times of the server's process, of this one and
// of the machine; ok is false where /proc does not have them.
func readCPU(serverPID int) (t cpuTimes, ok bool) {
	server, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", serverPID))
	if err != nil {
		return t, false
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return t, false
	}
	machine, err := os.ReadFile("/proc/stat")
	if err != nil {
		return t, false
	}
	var ok1, ok2, ok3 bool
	t.serverUser, t.serverKernel, ok1 = processTicks(string(server))
	u, k, ok2 := processTicks(string(self))
	t.generator = u + k
	t.machine, ok3 = busyTicks(string(machine))
	return t, ok1 && ok2 && ok3
}

// processTicks reads utime and stime, fields 14 and 15 of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses
// and may hold spaces, so fields are counted after its closing one.
func processTicks(stat string) (user, kernel int64, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	kernel, err2 := strconv.ParseInt(f[12], 10, 64)
	return user, kernel, err1 == nil && err2 == nil
}

// busyTicks is the machine's busy time from /proc/stat's first line:
// user, nice, system, irq, softirq and steal (time another guest of the
// host took from this one); idle and iowait are not busy.
func busyTicks(stat string) (int64, bool) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		busy += n
	}
	return busy, true
}

// sampleCPU records the CPU times at the start of each window and at the
// end of the last, until the last window closes or stop is closed.
func (w *windowed) sampleCPU(serverPID int, stop <-chan struct{}) {
	for i := range w.cpu {
		select {
		case <-stop:
			return
		case <-time.After(time.Until(w.start.Add(time.Duration(i) * w.step))):
		}
		t, ok := readCPU(serverPID)
		if !ok {
			return
		}
		w.cpu[i].Store(&t)
	}
}

// printCosts prints, for each window, its good answers, their mean body
// size, and the CPU time spent per good answer by the server (user space
// and kernel), by the load generator and by the rest of the machine. A
// window without both of its CPU samples prints its bytes only.
func (w *windowed) printCosts(out io.Writer) {
	if w.cpu[0].Load() == nil { // no /proc: no CPU split at all
		fmt.Fprintf(out, "per good answer, by %s window: body bytes\n", w.step)
		fmt.Fprintln(out, "window  answers  bytes")
	} else {
		fmt.Fprintf(out, "per good answer, by %s window: body bytes; CPU µs of the server (user, kernel), the load generator, the rest of the machine\n", w.step)
		fmt.Fprintln(out, "window  answers  bytes   server-user  server-kernel  generator  rest")
	}
	perAnswer := func(ticks, answers int64) int64 { return ticks * 1_000_000 / ticksPerSecond / answers }
	for i := range w.counts {
		answers := w.counts[i].Load()
		if answers == 0 {
			fmt.Fprintf(out, "%-7d %-8d\n", i+1, 0)
			continue
		}
		fmt.Fprintf(out, "%-7d %-8d %-7d", i+1, answers, w.bytes[i].Load()/answers)
		from, to := w.cpu[i].Load(), w.cpu[i+1].Load()
		if from == nil || to == nil {
			fmt.Fprintln(out)
			continue
		}
		d := to.sub(*from)
		rest := d.machine - d.serverUser - d.serverKernel - d.generator
		fmt.Fprintf(out, " %-12d %-14d %-10d %d\n", perAnswer(d.serverUser, answers),
			perAnswer(d.serverKernel, answers), perAnswer(d.generator, answers), perAnswer(max(rest, 0), answers))
	}
	if r, ok := w.steadyLastFirst(); ok {
		fmt.Fprintf(out, "last/first on a host of steady speed (the load generator's CPU per answer as the yardstick): %.2f\n", r)
	}
}

// steadyLastFirst estimates last/first as a host whose speed did not
// change would have read it. A shared virtual machine's speed drifts
// within a minute (one build's runs read 0.62 to 1.14, issue 24), and
// every process's CPU time per answer moves with it. The load generator's
// work per answer hardly changes (it grows a little with the bytes it
// checks, which flatters the server slightly), so the machine's CPU per
// answer over the generator's, first window against last, is the ratio
// without the drift: answers in a saturated window go as the inverse of
// what each costs. ok is false without CPU samples for both windows.
func (w *windowed) steadyLastFirst() (float64, bool) {
	last := len(w.counts) - 1
	if last == 0 { // one window is both
		return 0, false
	}
	cost := func(i int) (float64, bool) {
		from, to := w.cpu[i].Load(), w.cpu[i+1].Load()
		if from == nil || to == nil || w.counts[i].Load() == 0 {
			return 0, false
		}
		d := to.sub(*from)
		if d.generator <= 0 {
			return 0, false
		}
		// The machine's ticks are read a moment apart from the processes'
		// and may come out below their sum, as "rest" may below zero.
		return float64(max(d.machine, d.serverUser+d.serverKernel+d.generator)) / float64(d.generator), true
	}
	first, ok1 := cost(0)
	final, ok2 := cost(last)
	if !ok1 || !ok2 {
		return 0, false
	}
	return first / final, true
}
