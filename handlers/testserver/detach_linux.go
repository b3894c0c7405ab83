package testserver

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so that a Ctrl-C in the
// terminal reaches only the test or load test, which then stops the server
// in order; and has the kernel kill cmd when its parent dies, so a run
// killed by -timeout or a signal, which skips every cleanup, leaves no
// server behind.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
