package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd if the load test itself is
// killed (SIGKILL skips its cleanup), so no server is left behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
