//go:build !linux

package testserver

import "os/exec"

// detach does nothing outside Linux: a Ctrl-C reaches the server too,
// which then drains and exits on its own, and a run killed outright
// leaves the server running.
func detach(*exec.Cmd) {}
