package main

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so a Ctrl-C in the
// terminal reaches only the load test, which then stops the server in
// order (SIGTERM, drain, database dropped last); and has the kernel kill
// cmd if the load test itself is killed (SIGKILL skips its cleanup), so
// no server is left behind.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
