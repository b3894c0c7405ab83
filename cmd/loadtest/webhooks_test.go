package main

import (
	"strings"
	"testing"
)

// The server's log is read line by line for failed webhook claims, in
// text and JSON form; other lines, errors included, are not counted.
func TestServerLogCountsFailedClaims(t *testing.T) {
	log := strings.Join([]string{
		`time=2026-11-26T13:23:21.970Z level=INFO msg="webhook dispatcher started" workers=16`,
		`time=2026-11-26T13:23:22.001Z level=ERROR msg="webhooks: claiming deliveries failed" err="provider/internal-unavailable: The database is unavailable or did not answer in time"`,
		`{"time":"2026-11-26T13:23:22.002Z","level":"ERROR","msg":"webhooks: claiming deliveries failed","err":"x"}`,
		`time=2026-11-26T13:23:22.003Z level=ERROR msg="webhooks: recording an attempt failed"`,
		`time=2026-11-26T13:23:22.004Z level=INFO msg=request status=200`,
	}, "\n")
	s := &server{}
	for _, line := range strings.Split(log, "\n") {
		s.countLine(line)
	}
	if n := s.claimFailures.Load(); n != 2 {
		t.Fatalf("counted %d failed claims, want 2", n)
	}
}
