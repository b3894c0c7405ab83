//go:build !linux

package e2e

import "os/exec"

// dieWithTests does nothing here: only Linux can tie a child's life to
// its parent's.
func dieWithTests(*exec.Cmd) {}
