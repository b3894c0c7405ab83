package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTests has the kernel stop cmd when the test binary dies, so a
// run killed by -timeout or a signal, which skips TestMain's cleanup,
// leaves no server behind.
func dieWithTests(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
