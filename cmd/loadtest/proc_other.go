//go:build !linux

package main

import "os/exec"

// detach does nothing outside Linux: a Ctrl-C reaches the server too,
// which then drains and exits on its own, and a load test killed outright
// leaves the server running.
func detach(*exec.Cmd) {}
